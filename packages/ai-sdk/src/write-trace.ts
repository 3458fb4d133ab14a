import { type MessageStoreApi, newId, type TurnTrace } from "@message-store/core";
import { type StepUsageLike, stepUsage, type TurnTraceOptions } from "./turn-trace.js";

/** Whose turn a trace describes. */
export interface TraceTarget {
  conversationId: string;
  /** The assistant message that ended the turn. */
  messageId: string;
  agentId: string;
  userId: string;
}

/**
 * Stores the trace of a turn on `target.messageId`. A message has one trace, so a second call for
 * the same message replaces the first (same trace id) instead of failing.
 */
export async function writeTurnTrace(
  store: MessageStoreApi,
  target: TraceTarget,
  steps: readonly StepUsageLike[],
  options: TurnTraceOptions = {},
): Promise<TurnTrace> {
  const existing = await store.getTurnTraceByMessageId(target.messageId);
  return store.storeTurnTrace({
    id: existing?.id ?? newId(),
    ...target,
    timestamp: Date.now(),
    ...stepUsage(steps, options),
    metadata: { source: "ai-sdk", ...options.metadata },
  });
}
