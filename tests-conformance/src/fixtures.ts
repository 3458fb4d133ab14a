import {
  type ConversationInput,
  type LLMCallRecordInput,
  type MessageInput,
  newId,
  type ToolTraceInput,
  type TurnTraceInput,
} from "@message-store/core";

/** A fixed instant (2025-01-01T00:00:00Z) so that fixtures never depend on the clock. */
export const T0 = Date.UTC(2025, 0, 1);
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** A unique id (`prefix-<uuid v7>`); ids made later sort after ids made earlier. */
export function uid(prefix = "id"): string {
  return `${prefix}-${newId()}`;
}

/** What a message needs from its conversation. */
export interface ConversationRef {
  id: string;
  userId: string;
}

/** What a trace needs from its message. */
export interface MessageRef {
  id: string;
  conversationId: string;
  userId: string;
}

type WithIds<T> = T & { id: string; userId: string };

/** A minimal conversation: only the required fields plus fixed times. */
export function conversation(
  overrides: Partial<ConversationInput> = {},
): WithIds<ConversationInput> {
  return {
    id: uid("conv"),
    userId: uid("user"),
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  } as WithIds<ConversationInput>;
}

/** A minimal message in `conv`: only the required fields. */
export function message(
  conv: ConversationRef,
  overrides: Partial<MessageInput> = {},
): WithIds<MessageInput> & { conversationId: string; timestamp: number } {
  return {
    id: uid("msg"),
    conversationId: conv.id,
    userId: conv.userId,
    role: "user",
    originalContent: "hello",
    timestamp: T0 + 1_000,
    ...overrides,
  } as WithIds<MessageInput> & { conversationId: string; timestamp: number };
}

/** A minimal trace of `msg`: only the required fields. */
export function trace(
  msg: MessageRef,
  overrides: Partial<TurnTraceInput> = {},
): TurnTraceInput & { id: string; messageId: string; agentId: string; timestamp: number } {
  return {
    id: uid("trace"),
    messageId: msg.id,
    conversationId: msg.conversationId,
    agentId: "agent-1",
    timestamp: T0 + 2_000,
    totalTokens: 10,
    totalLatencyMs: 100,
    ...overrides,
  } as TurnTraceInput & { id: string; messageId: string; agentId: string; timestamp: number };
}

/** An LLM call with every field set. */
export function llmCall(overrides: Partial<LLMCallRecordInput> = {}): LLMCallRecordInput {
  return {
    purpose: "agent_loop",
    model: "model-x",
    promptTokens: 10,
    completionTokens: 5,
    latencyMs: 12.5,
    costUsd: 0.1 + 0.2,
    startedAt: T0 + 1_500,
    error: null,
    ...overrides,
  };
}

/** A conversation with every field set to a non-default value. */
export function fullConversation(
  overrides: Partial<ConversationInput> = {},
): WithIds<ConversationInput> {
  return conversation({
    agentId: "agent-full",
    title: "Order status 📦 — «résumé»",
    description: "Customer asks where order #42 is.\nSecond line",
    status: "waiting on customer",
    createdAt: T0 - 5_000,
    updatedAt: T0 - 1_000,
    tags: ["support", "vip", "ünïcödé", "𝕏"],
    metadata: {
      channel: "web",
      nested: { deep: [1, 2.5, "three", null, true, { four: [] }] },
      empty: {},
      list: [],
      float: 0.1 + 0.2,
    },
    ...overrides,
  });
}

/** A message with every field set to a non-default value (an assistant message with tool calls). */
export function fullMessage(
  conv: ConversationRef,
  overrides: Partial<MessageInput> = {},
): ReturnType<typeof message> {
  return message(conv, {
    role: "assistant",
    originalContent: "Your order 🚚 ships tomorrow.\nLine two\ttabbed",
    enhancedMessage: "The user's order #42 ships on 2025-01-02.",
    explicitContext: "order #42",
    episodeId: uid("episode"),
    isFlagged: true,
    isContinuation: true,
    invokedFlows: ["order_status", "escalate"],
    invokedTools: ["lookup_order"],
    reasoningSteps: ["find order", "read status"],
    entities: [
      { name: "order #42", attributes: ["status: shipped", "carrier: DHL"] },
      { name: "DHL", attributes: [] },
    ],
    intent: "order_status",
    sentiment: "positive",
    sentimentScore: -0.123456789012345,
    timestamp: T0 + 3_000,
    toolCalls: [
      {
        toolCallId: "call-1",
        toolName: "lookup_order",
        arguments: { orderId: 42, verbose: true, fields: ["status", "eta"], filter: { a: null } },
        result: { status: "shipped", eta: T0 + DAY, items: [{ sku: "A-1", qty: 2 }] },
      },
      { toolCallId: "call-2", toolName: "noop", arguments: {}, result: "plain string result" },
      { toolCallId: "call-3", toolName: "count", arguments: { n: 1 }, result: 7 },
    ],
    toolCallId: "call-0",
    toolName: "previous_tool",
    toolArguments: { orderId: 42, nested: { list: [1, "two", null] } },
    tags: ["shipping", "ünïcödé"],
    metadata: { source: "agent", scores: [0.25, -1e-7, 1e21], ok: false },
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    embedding: [0.1 + 0.2, -0.5, 1e-300, 123456.789, 0],
    ...overrides,
  });
}

/** A tool trace with every field set. */
export function fullToolTrace(overrides: Partial<ToolTraceInput> = {}): ToolTraceInput {
  return {
    toolName: "lookup_order",
    input: { orderId: 42, fields: ["status"], deep: { ok: true, n: null }, $where: { "a.b": 1 } },
    generationAttempts: [
      {
        attempt: 1,
        script: "print(x",
        error: "SyntaxError",
        llmCall: llmCall({ purpose: "script_generation" }),
      },
      { attempt: 2, script: "print(x)", error: null, llmCall: null },
    ],
    finalScript: "print(x)",
    finalData: { rows: [{ id: 1 }, { id: 2 }], total: 2 },
    stdout: "1\n2\n",
    traceback: 'Traceback (most recent call last):\n  File "<x>"',
    outputBytes: 4,
    peakMemoryBytes: 1_048_576.5,
    durationMs: 33.3,
    exitCode: -1,
    ...overrides,
  };
}

/** A trace with every field set to a non-default value. */
export function fullTrace(
  msg: MessageRef,
  overrides: Partial<TurnTraceInput> = {},
): ReturnType<typeof trace> {
  return trace(msg, {
    agentId: "agent-full",
    userId: msg.userId,
    timestamp: T0 + 4_000,
    totalTokens: 1234,
    totalLatencyMs: 987.654,
    llmCalls: [
      llmCall(),
      llmCall({
        purpose: "enhancement",
        model: "model-y",
        costUsd: null,
        startedAt: null,
        error: "timeout",
      }),
      llmCall({ purpose: "summarization", promptTokens: 0, completionTokens: 0, latencyMs: 0 }),
      llmCall({ purpose: "embedding" }),
      llmCall({ purpose: "other", costUsd: 0 }),
    ],
    taskEmissions: ["emit:a", "emit:b"],
    toolTraces: [
      fullToolTrace(),
      fullToolTrace({ toolName: "string-data", finalData: "text" }),
      fullToolTrace({ toolName: "number-data", finalData: 0.1 + 0.2 }),
      fullToolTrace({ toolName: "bool-data", finalData: false }),
      fullToolTrace({ toolName: "null-data", finalData: null }),
      fullToolTrace({ toolName: "array-data", finalData: [1, "two", [3], { four: 4 }, null] }),
    ],
    slotEvents: [{ slot: "orderId", value: 42 }, {}],
    flowEvents: [{ flow: "order_status", event: "start", at: T0 }],
    errors: [{ type: "ToolError", detail: { code: 500, retry: true } }],
    reasoningSteps: ["step 1", "step 2"],
    metadata: { release: "1.2.3", flags: { beta: true } },
    ...overrides,
  });
}
