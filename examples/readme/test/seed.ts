import type { MessageStore } from "@message-store/core";

/** The fixture every README example starts from: conversation c1 of u1, four messages, one trace. */
export async function seed(store: MessageStore): Promise<void> {
  const now = Date.now() - 10_000;
  await store.storeConversation({ id: "c1", userId: "u1", agentId: "support", createdAt: now });
  const base = { conversationId: "c1", userId: "u1" };
  await store.storeMessages([
    { ...base, id: "m1", role: "user", originalContent: "Can I get a refund?", timestamp: now + 1 },
    {
      ...base,
      id: "m2",
      role: "assistant",
      originalContent: "Let me look that up.",
      timestamp: now + 2,
      toolCalls: [{ toolCallId: "call-1", toolName: "search", arguments: { q: "refund policy" } }],
    },
    {
      ...base,
      id: "m3",
      role: "tool",
      originalContent: '{"policy":"30 days"}',
      timestamp: now + 2,
      toolCallId: "call-1",
      toolName: "search",
    },
    {
      ...base,
      id: "m4",
      role: "assistant",
      originalContent: `Refunds are possible within 30 days. ${"Details follow. ".repeat(120)}`,
      timestamp: now + 3,
    },
  ]);
  await store.storeTurnTrace({
    id: "t1",
    messageId: "m4",
    conversationId: "c1",
    agentId: "support",
    userId: "u1",
    timestamp: now + 3,
    totalTokens: 1_500,
    totalLatencyMs: 900,
    llmCalls: [
      {
        purpose: "agent_loop",
        model: "gpt-4.1-mini",
        promptTokens: 1_300,
        completionTokens: 200,
        latencyMs: 800,
        costUsd: 0.001,
      },
    ],
    toolTraces: [{ toolName: "search", durationMs: 100 }],
  });
}
