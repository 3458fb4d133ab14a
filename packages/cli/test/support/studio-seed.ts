import type {
  ConversationInput,
  LLMCallRecordInput,
  MessageInput,
  MessageStore,
  ToolTraceInput,
  TurnTraceInput,
} from "@message-store/core";

const HOUR = 3_600_000;
const AGENTS = ["support-bot", "travel-bot", "code-helper"] as const;
const USERS = ["u-ana", "u-ben", "u-chen", "u-dara"] as const;
const MODELS = ["gpt-4o", "gpt-4o-mini", "claude-sonnet"] as const;

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The featured conversation: a refund with a tool call, a long answer and a flagged message. */
export const REFUND = {
  conversationId: "c-refund-4512",
  title: "Refund for order #4512",
  userId: "u-ana",
  agentId: "support-bot",
  /** The assistant message that ended the tool-using turn (it has the richest trace). */
  toolTurnMessageId: "c-refund-4512-m4",
  /** The long answer, compressed in the context window. */
  longAnswerId: "c-refund-4512-m4",
  /** A user message, not flagged in the seed; the browser test flags it. */
  toFlagId: "c-refund-4512-m5",
  toFlagText: "Also, can you change my delivery address to Rua Augusta 12?",
  /** Flagged in the seed. */
  flaggedId: "c-refund-4512-m7",
  /** Written soft-deleted (as an import would), so only views with deleted records show it. */
  deletedId: "c-refund-4512-m5d",
  deletedText: "My card is 4111 1111 1111 1111, charge that one instead.",
  toolCallId: "call-lookup-4512",
} as const;

/** What the seed wrote, for the tests' expectations. */
export interface StudioSeed {
  now: number;
  conversations: ConversationInput[];
  messages: MessageInput[];
  traces: TurnTraceInput[];
}

function embeddingFor(text: string): number[] {
  // A tiny deterministic "embedding": letter statistics, so similar texts score higher.
  const v = [0, 0, 0, 0, 0, 0];
  for (const ch of text.toLowerCase()) {
    const code = ch.charCodeAt(0);
    if (code >= 97 && code <= 122) v[(code - 97) % 6]! += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

function llm(
  purpose: LLMCallRecordInput["purpose"],
  model: string,
  promptTokens: number,
  completionTokens: number,
  latencyMs: number,
  startedAt: number,
  error: string | null = null,
): LLMCallRecordInput {
  const costUsd = Math.round((promptTokens * 2.5 + completionTokens * 10) / 1e6 / 1e-9) * 1e-9;
  return { purpose, model, promptTokens, completionTokens, latencyMs, startedAt, costUsd, error };
}

function trace(
  id: string,
  message: MessageInput,
  agentId: string,
  llmCalls: LLMCallRecordInput[],
  toolTraces: ToolTraceInput[],
  errors: TurnTraceInput["errors"] = [],
): TurnTraceInput {
  const totalTokens = llmCalls.reduce((s, c) => s + c.promptTokens + c.completionTokens, 0);
  const starts = llmCalls.map((c) => c.startedAt ?? message.timestamp);
  const ends = llmCalls.map((c) => (c.startedAt ?? message.timestamp) + c.latencyMs);
  return {
    id,
    messageId: message.id,
    conversationId: message.conversationId,
    agentId,
    userId: message.userId,
    timestamp: message.timestamp,
    totalTokens,
    totalLatencyMs: Math.max(...ends) - Math.min(...starts),
    llmCalls,
    toolTraces,
    errors,
  };
}

function refundConversation(now: number): StudioSeed {
  const c = REFUND;
  const t0 = now - 2 * HOUR;
  const base = { conversationId: c.conversationId, userId: c.userId };
  const longAnswer = [
    "Order #4512 is refundable, and I have started a refund of €89.90 to the card you paid with.",
    "Here is what happens next, step by step, so you know what to expect over the coming days.",
    ...Array.from(
      { length: 8 },
      (_, i) =>
        `Step ${i + 1}: the payment provider confirms the reversal and updates the ledger entry; you do not need to do anything for this step.`,
    ),
    "You will see the money within 5 business days. Is there anything else I can help with?",
  ].join("\n");
  const written: MessageInput[] = [
    {
      ...base,
      id: `${c.conversationId}-m1`,
      role: "system",
      originalContent: "You are a courteous support agent for an online shop.",
      timestamp: t0,
    },
    {
      ...base,
      id: `${c.conversationId}-m2`,
      role: "user",
      originalContent: "Hi, I want a refund for order #4512. It arrived broken.",
      timestamp: t0 + 1000,
      intent: "refund_request",
      sentiment: "negative",
      sentimentScore: -0.6,
      entities: [{ name: "order #4512", attributes: ["order"] }],
    },
    {
      ...base,
      id: `${c.conversationId}-m3`,
      role: "assistant",
      originalContent: "Let me look that order up.",
      timestamp: t0 + 3000,
      toolCalls: [
        { toolCallId: c.toolCallId, toolName: "lookup_order", arguments: { orderId: "4512" } },
      ],
      invokedTools: ["lookup_order"],
    },
    {
      ...base,
      id: `${c.conversationId}-m3t`,
      role: "tool",
      originalContent: JSON.stringify({ status: "delivered", total: 89.9, refundable: true }),
      toolCallId: c.toolCallId,
      toolName: "lookup_order",
      timestamp: t0 + 5000,
    },
    {
      ...base,
      id: c.toolTurnMessageId,
      role: "assistant",
      originalContent: longAnswer,
      timestamp: t0 + 9000,
      intent: "refund_started",
      sentiment: "positive",
      sentimentScore: 0.4,
    },
    {
      ...base,
      id: c.toFlagId,
      role: "user",
      originalContent: c.toFlagText,
      timestamp: t0 + 60_000,
      intent: "change_address",
      entities: [{ name: "Rua Augusta 12", attributes: ["address"] }],
    },
    {
      ...base,
      id: c.deletedId,
      role: "user",
      originalContent: c.deletedText,
      timestamp: t0 + 61_000,
      deletedAt: t0 + 62_000,
    },
    {
      ...base,
      id: `${c.conversationId}-m6`,
      role: "assistant",
      originalContent: "Done: order #4513 will go to Rua Augusta 12.",
      timestamp: t0 + 63_000,
    },
    {
      ...base,
      id: c.flaggedId,
      role: "user",
      originalContent: "Took you long enough, useless bot.",
      isFlagged: true,
      timestamp: t0 + 120_000,
      sentiment: "negative",
      sentimentScore: -0.9,
    },
    {
      ...base,
      id: `${c.conversationId}-m8`,
      role: "assistant",
      originalContent: "Sorry for the wait. Is there anything else I can do?",
      timestamp: t0 + 123_000,
    },
  ];
  const messages = written.map((m) => ({ ...m, embedding: embeddingFor(m.originalContent) }));
  const byId = new Map(messages.map((m) => [m.id, m]));
  const turnStart = t0 + 1200;
  const traces = [
    trace(
      "trace-refund-1",
      byId.get(c.toolTurnMessageId)!,
      c.agentId,
      [
        llm("enhancement", "gpt-4o-mini", 320, 40, 420, turnStart),
        llm("agent_loop", "gpt-4o", 1240, 60, 1350, turnStart + 450),
        llm("script_generation", "gpt-4o-mini", 610, 180, 980, turnStart + 1850),
        llm("agent_loop", "gpt-4o", 1710, 420, 2650, turnStart + 4900),
      ],
      [
        {
          toolName: "lookup_order",
          generationAttempts: [
            {
              attempt: 1,
              script: "order = shop.orders.get('4512')\nprint(order.total)",
              error: "NameError: name 'shop' is not defined",
            },
            {
              attempt: 2,
              script:
                "from shop_api import orders\norder = orders.get('4512')\nprint(order.json())",
            },
          ],
          finalScript:
            "from shop_api import orders\norder = orders.get('4512')\nprint(order.json())",
          finalData: { status: "delivered", total: 89.9, refundable: true },
          stdout: '{"status": "delivered", "total": 89.9, "refundable": true}',
          outputBytes: 58,
          durationMs: 1870,
          exitCode: 0,
        },
      ],
    ),
    trace(
      "trace-refund-2",
      byId.get(`${c.conversationId}-m6`)!,
      c.agentId,
      [llm("agent_loop", "gpt-4o", 1980, 35, 1100, t0 + 61_000)],
      [
        {
          toolName: "update_address",
          finalScript: "orders.update('4513', address='Rua Augusta 12')",
          stdout: null,
          traceback:
            'Traceback (most recent call last):\n  File "tool.py", line 1, in <module>\nPermissionError: address locked after dispatch',
          durationMs: 640,
          exitCode: 1,
        },
      ],
      [{ type: "tool_error", tool: "update_address", message: "address locked after dispatch" }],
    ),
    trace(
      "trace-refund-3",
      byId.get(`${c.conversationId}-m8`)!,
      c.agentId,
      [llm("agent_loop", "gpt-4o", 2100, 25, 900, t0 + 121_500)],
      [],
    ),
  ];
  const conversation: ConversationInput = {
    id: c.conversationId,
    userId: c.userId,
    agentId: c.agentId,
    title: c.title,
    createdAt: t0,
    tags: ["support", "refund"],
  };
  return { now, conversations: [conversation], messages, traces };
}

const TOPICS: Record<(typeof AGENTS)[number], string[]> = {
  "support-bot": ["Where is my parcel?", "Invoice copy", "Cancel subscription", "Broken charger"],
  "travel-bot": ["Flights to Lisbon", "Hotel in Porto", "Train to Madrid", "Change my booking"],
  "code-helper": ["Fix a failing test", "Explain a regex", "Speed up a query", "Plot a CSV"],
};

/** Many short conversations over the last `days` days, one or two turns each, for the charts. */
function bulkConversations(now: number, count: number, days: number): StudioSeed {
  const rnd = random(7);
  const seed: StudioSeed = { now, conversations: [], messages: [], traces: [] };
  for (let i = 0; i < count; i++) {
    const agentId = AGENTS[i % AGENTS.length]!;
    const userId = USERS[i % USERS.length]!;
    const id = `c-${agentId.split("-")[0]}-${String(i).padStart(3, "0")}`;
    const start = now - Math.floor(rnd() * days * 24 * HOUR) - 10 * 60_000;
    const title = TOPICS[agentId][i % 4]!;
    seed.conversations.push({ id, userId, agentId, title, createdAt: start });
    const turns = 1 + (i % 2);
    for (let turn = 0; turn < turns; turn++) {
      const t = start + turn * 90_000;
      const question: MessageInput = {
        id: `${id}-q${turn}`,
        conversationId: id,
        userId,
        role: "user",
        originalContent: turn === 0 ? title : "Thanks, and one more thing about that?",
        timestamp: t,
      };
      const answer: MessageInput = {
        id: `${id}-a${turn}`,
        conversationId: id,
        userId,
        role: "assistant",
        originalContent: `Here is what I found about "${title.toLowerCase()}".`,
        timestamp: t + 4000,
      };
      for (const m of [question, answer]) {
        m.embedding = embeddingFor(m.originalContent);
        seed.messages.push(m);
      }
      const calls = 1 + Math.floor(rnd() * 3);
      const llmCalls = Array.from({ length: calls }, (_, k) =>
        llm(
          k === 0 ? "agent_loop" : "enhancement",
          MODELS[Math.floor(rnd() * MODELS.length)]!,
          200 + Math.floor(rnd() * 2500),
          20 + Math.floor(rnd() * 400),
          300 + Math.floor(rnd() * 3000),
          t + 200 + k * 900,
        ),
      );
      const failed = rnd() < 0.12;
      seed.traces.push(
        trace(
          `trace-${id}-${turn}`,
          answer,
          agentId,
          llmCalls,
          [],
          failed ? [{ type: "timeout", message: "model call timed out after 30 s" }] : [],
        ),
      );
    }
  }
  return seed;
}

/**
 * Fills `store` with the studio's sample data: the featured refund conversation and `bulk`
 * short conversations spread over the last 7 days (relative to `now`), every message with a
 * small embedding and every assistant turn with a trace.
 */
export async function seedStudioStore(
  store: MessageStore,
  now = Date.now(),
  bulk = 48,
): Promise<StudioSeed> {
  const parts = [refundConversation(now), bulkConversations(now, bulk, 7)];
  const all: StudioSeed = {
    now,
    conversations: parts.flatMap((p) => p.conversations),
    messages: parts.flatMap((p) => p.messages),
    traces: parts.flatMap((p) => p.traces),
  };
  for (const conversation of all.conversations) {
    await store.storeConversation(conversation);
    await store.storeMessages(all.messages.filter((m) => m.conversationId === conversation.id));
  }
  for (const t of all.traces) await store.storeTurnTrace(t);
  return all;
}
