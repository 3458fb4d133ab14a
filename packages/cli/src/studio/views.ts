import type { Message, TurnTrace } from "@message-store/core";
import { callsCostUsd } from "../format/calls-cost.js";
import type { MessageView, TraceSummary } from "./api-types.js";

/** A message for the page: the embedding (possibly thousands of numbers) becomes its length. */
export function messageView({ embedding, ...message }: Message): MessageView {
  return { ...message, embeddingDims: embedding === null ? null : embedding.length };
}

/** The totals of a trace shown in lists (the whole trace is sent only by the turn view). */
export function traceSummary(t: TurnTrace): TraceSummary {
  let promptTokens = 0;
  let completionTokens = 0;
  for (const call of t.llmCalls) {
    promptTokens += call.promptTokens;
    completionTokens += call.completionTokens;
  }
  return {
    id: t.id,
    messageId: t.messageId,
    conversationId: t.conversationId,
    agentId: t.agentId,
    userId: t.userId,
    timestamp: t.timestamp,
    totalTokens: t.totalTokens,
    promptTokens,
    completionTokens,
    costUsd: callsCostUsd(t.llmCalls),
    totalLatencyMs: t.totalLatencyMs,
    llmCalls: t.llmCalls.length,
    toolRuns: t.toolTraces.length,
    errors: t.errors.length,
    models: [...new Set(t.llmCalls.map((c) => c.model))],
  };
}
