import type { ConversationRecord, Message, TurnTrace } from "@message-store/core";

/**
 * Deterministic, realistic records: every field the model has, with defaults filled, so the same
 * object is valid input for the store and a complete row for the raw path. Sizes follow a chat
 * agent: 150–700 characters of text, a metadata object, an entity now and then, a tool call on one
 * assistant message in four; a trace with two model calls and, one turn in four, a tool run.
 */

/** Epoch ms all generated timestamps start from (2025-01-01T00:00:00Z). */
export const BASE_TIME = 1_735_689_600_000;

const WORDS =
  "the agent reads the user request then plans a short answer checks the calendar looks up the order history and replies with a friendly summary including dates amounts and next steps".split(
    " ",
  );

/** A small seeded PRNG (mulberry32), so every run generates the same data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function text(random: () => number, minChars: number, maxChars: number): string {
  const target = minChars + Math.floor(random() * (maxChars - minChars));
  const out: string[] = [];
  let length = 0;
  while (length < target) {
    const word = WORDS[Math.floor(random() * WORDS.length)]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(" ");
}

/** A conversation record as core hands it to an adapter. */
export function makeConversation(id: string, userId: string, agentId: string): ConversationRecord {
  return {
    id,
    userId,
    tenantId: null,
    agentId,
    title: `Conversation ${id}`,
    description: null,
    status: "active",
    createdAt: BASE_TIME,
    updatedAt: BASE_TIME,
    deletedAt: null,
    tags: ["bench"],
    metadata: { source: "bench", channel: "web" },
  };
}

/** One message; `n` is its index in the conversation (even = user, odd = assistant). */
export function makeMessage(
  id: string,
  conversationId: string,
  userId: string,
  n: number,
  timestamp: number,
  random: () => number,
): Message {
  const assistant = n % 2 === 1;
  const withTool = assistant && n % 8 === 1;
  return {
    id,
    conversationId,
    userId,
    tenantId: null,
    role: assistant ? "assistant" : "user",
    originalContent: text(random, assistant ? 300 : 150, assistant ? 700 : 400),
    enhancedMessage: null,
    explicitContext: null,
    episodeId: null,
    isFlagged: false,
    isContinuation: false,
    invokedFlows: assistant ? ["answer"] : [],
    invokedTools: withTool ? ["orders.lookup"] : [],
    reasoningSteps: assistant ? ["understand the request", "answer"] : [],
    entities: n % 5 === 0 ? [{ name: "Paris", attributes: ["city"] }] : [],
    intent: assistant ? null : "question",
    sentiment: assistant ? null : "neutral",
    sentimentScore: assistant ? 0 : 0.25,
    timestamp,
    toolCalls: withTool
      ? [
          {
            toolCallId: `${id}-call`,
            toolName: "orders.lookup",
            arguments: { orderId: `o-${n}`, includeItems: true },
            result: { status: "shipped", items: 3 },
          },
        ]
      : [],
    toolCallId: null,
    toolName: null,
    toolArguments: null,
    tags: [],
    metadata: { source: "bench", turn: n >> 1 },
    traceId: null,
    spanId: null,
    embedding: null,
    deletedAt: null,
  };
}

/** The trace of the turn that `message` (an assistant message) ended. */
export function makeTrace(id: string, message: Message, agentId: string, n: number): TurnTrace {
  const promptTokens = 800 + (n % 400);
  const completionTokens = 120 + (n % 90);
  return {
    id,
    messageId: message.id,
    conversationId: message.conversationId,
    agentId,
    userId: message.userId,
    tenantId: null,
    timestamp: message.timestamp,
    totalTokens: promptTokens + completionTokens + 150,
    totalLatencyMs: 900 + (n % 700),
    llmCalls: [
      {
        purpose: "enhancement",
        model: "gpt-4o-mini",
        promptTokens: 100,
        completionTokens: 50,
        latencyMs: 180,
        costUsd: 0.00004,
        startedAt: message.timestamp - 1500,
        error: null,
      },
      {
        purpose: "agent_loop",
        model: "gpt-4o",
        promptTokens,
        completionTokens,
        latencyMs: 700 + (n % 600),
        costUsd: 0.0025,
        startedAt: message.timestamp - 1200,
        error: null,
      },
    ],
    taskEmissions: [],
    toolTraces:
      n % 4 === 0
        ? [
            {
              toolName: "orders.lookup",
              input: { order: n },
              generationAttempts: [],
              finalScript: "return lookup(order)",
              finalData: { status: "shipped" },
              stdout: null,
              traceback: null,
              outputBytes: 42,
              peakMemoryBytes: null,
              durationMs: 35,
              exitCode: 0,
            },
          ]
        : [],
    slotEvents: [],
    flowEvents: [{ flow: "answer", event: "completed" }],
    errors: [],
    reasoningSteps: ["understand the request", "answer"],
    metadata: { source: "bench" },
    deletedAt: null,
  };
}

/**
 * Messages of one conversation: `count` of them, alternating user and assistant, one second
 * apart from `start`. Ids are `<prefix>-<n>` with n zero-padded so they sort in order.
 */
export function conversationMessages(
  prefix: string,
  conversationId: string,
  userId: string,
  count: number,
  start: number,
  random: () => number,
): Message[] {
  return Array.from({ length: count }, (_, n) =>
    makeMessage(
      `${prefix}-${String(n).padStart(6, "0")}`,
      conversationId,
      userId,
      n,
      start + n * 1000,
      random,
    ),
  );
}
