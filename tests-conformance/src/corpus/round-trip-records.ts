/** Builders of the records the round-trip cases store: filled-in models and hostile strings. */
import { T0 } from "../fixtures.js";
import type { RoundTripRecords } from "./corpus-case.js";

type Fields = Record<string, unknown>;

/** Fills the required fields around the given ones: a conversation, its messages, a trace of the last. */
export function records(o: {
  conversation?: Fields;
  messages?: Fields[];
  trace?: Fields;
}): RoundTripRecords {
  const conversation = { id: "rt-conv", userId: "rt-user", createdAt: T0, ...o.conversation };
  const messages = (o.messages ?? [{}]).map((m, i) => ({
    id: `rt-msg-${i}`,
    conversationId: conversation.id,
    userId: conversation.userId,
    role: "assistant",
    originalContent: "x",
    timestamp: T0 + i,
    ...m,
  }));
  const last = messages[messages.length - 1]!;
  const trace = o.trace && {
    id: "rt-trace",
    messageId: last.id,
    conversationId: conversation.id,
    agentId: "rt-agent",
    timestamp: T0,
    totalTokens: 1,
    totalLatencyMs: 1,
    ...o.trace,
  };
  return { conversation, messages, ...(trace ? { trace } : {}) } as RoundTripRecords;
}

/** Every string field of all three models set from `text(i)`; JSON keys too. */
export function everyString(text: (i: number) => string, ids: boolean): RoundTripRecords {
  const t = text;
  const json = { [t(1)]: t(2), nested: { [t(3)]: [t(4), { [t(5)]: t(6) }] } };
  const id = (i: number, fallback: string) => (ids ? t(i) : fallback);
  return records({
    conversation: {
      id: id(10, "rt-conv"),
      userId: id(11, "rt-user"),
      agentId: id(12, "rt-agent"),
      title: t(13),
      description: t(16),
      status: t(17),
      tags: [t(14), t(15)],
      metadata: json,
    },
    messages: [
      {
        id: id(20, "rt-msg"),
        episodeId: id(21, "rt-episode"),
        originalContent: t(22),
        enhancedMessage: t(23),
        explicitContext: t(24),
        invokedFlows: [t(25)],
        invokedTools: [t(26)],
        reasoningSteps: [t(27)],
        entities: [{ name: t(28), attributes: [t(29)] }],
        intent: t(30),
        sentiment: t(31),
        toolCalls: [
          {
            toolCallId: id(32, "rt-call"),
            toolName: t(33),
            arguments: json,
            result: { [t(34)]: t(35) },
          },
        ],
        toolCallId: id(36, "rt-call-0"),
        toolName: t(37),
        toolArguments: json,
        tags: [t(38)],
        metadata: json,
        traceId: id(39, "rt-otel-trace"),
        spanId: id(53, "rt-otel-span"),
      },
    ],
    trace: {
      id: id(40, "rt-trace"),
      agentId: id(41, "rt-agent"),
      // A trace's user is its conversation's owner.
      userId: id(11, "rt-user"),
      llmCalls: [
        {
          purpose: "other",
          model: t(43),
          promptTokens: 1,
          completionTokens: 1,
          latencyMs: 1,
          error: t(44),
        },
      ],
      taskEmissions: [t(45)],
      toolTraces: [
        {
          toolName: t(46),
          generationAttempts: [{ attempt: 1, script: t(47), error: t(48) }],
          finalScript: t(49),
          finalData: json,
          stdout: t(50),
          traceback: t(51),
        },
      ],
      slotEvents: [json],
      flowEvents: [json],
      errors: [json],
      reasoningSteps: [t(52)],
      metadata: json,
    },
  });
}

const SQL = [
  "'); DROP TABLE messages; --",
  "' OR '1'='1",
  '"; DROP TABLE conversations; --',
  "1; DELETE FROM turn_traces WHERE 1=1; --",
  "$$; DROP SCHEMA public CASCADE; $$",
  "\\'; TRUNCATE messages CASCADE; --",
  "%' OR 1=1 --",
  "$1 ? :id @p0 %s",
  "'; UPDATE conversations SET user_id = 'x'; --",
  "0x27 UNION SELECT * FROM pg_shadow --",
];
export const sql = (i: number) => `${SQL[i % SQL.length]!} #${i}`;
export const nul = (i: number) => `\u0000nul\u0000${i}\u0000`;
const UNICODE = [
  "😀👩‍👩‍👧‍👦",
  "𝕏𝔸𝕄",
  "e\u0301 Å",
  "مرحبا עברית",
  "\uFEFFbom",
  "\uFFFF\uFFFE",
  "line\u2028sep\u2029",
  "中文漢字",
  "🏳️‍🌈",
  "\u{10FFFF}",
];
export const uni = (i: number) => `${UNICODE[i % UNICODE.length]!}${i}`;
export const controls = (i: number) => `\t\n\r\b\f\u0001\u001f\u007f\u0085 ${i}`;
export const escapes = (i: number) =>
  `\\ \\\\ " ' \` \\u0000 \\n %s %d \${x} {{x}} <script>${i}</script>`;

/** A JSON object `levels` containers deep (itself level 1; objects and arrays alternate). */
export function nest(levels: number): Fields {
  let v: unknown = "$.\u0000";
  for (let depth = levels; depth >= 1; depth--) v = depth % 2 ? { [`l${depth}`]: v } : [v];
  return v as Fields;
}

export function deep(depth: number): Fields {
  let v: Fields = { leaf: true };
  for (let i = 0; i < depth; i++) v = { [`level${depth - i}`]: v, i };
  return v;
}

/** Keys a MongoDB driver or a JSON path would treat as operators or paths. */
export const DOLLAR_KEYS = {
  $where: "sleep(1000)",
  $set: { isFlagged: true },
  $ne: null,
  $: 1,
  "a.b": 2,
  ".": 3,
  "..": 4,
  "a.$.b": 5,
  "$in.$or": [{ $gt: "" }],
  "x.": { ".y": { "$z.": "$" } },
};
