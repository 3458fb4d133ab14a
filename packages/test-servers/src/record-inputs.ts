import type { MessageInput, TurnTraceInput } from "@message-store/core";

/**
 * Minimal valid inputs for the adapters' own tests, one shape everywhere: a user message
 * `content of <id>` by user `u1`, and a trace by `agent-1` with 100 tokens and 10 ms. `extra`
 * overrides any field.
 */
export function messageInput(
  id: string,
  conversationId: string,
  timestamp: number,
  extra: Partial<MessageInput> = {},
): MessageInput {
  return {
    id,
    conversationId,
    userId: "u1",
    role: "user",
    originalContent: `content of ${id}`,
    timestamp,
    ...extra,
  };
}

/** A trace of message `messageId`; see {@link messageInput}. */
export function traceInput(
  id: string,
  messageId: string,
  conversationId: string,
  timestamp: number,
  extra: Partial<TurnTraceInput> = {},
): TurnTraceInput {
  return {
    id,
    messageId,
    conversationId,
    agentId: "agent-1",
    timestamp,
    totalTokens: 100,
    totalLatencyMs: 10,
    ...extra,
  };
}
