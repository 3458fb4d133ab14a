import { describe, expect, it } from "vitest";
import {
  canonicalConversation,
  canonicalConversationRecord,
  canonicalMessage,
  canonicalTurnTrace,
} from "../../src/adapter.js";
import {
  ConversationInputSchema,
  ConversationSchema,
  MAX_JSON_DEPTH,
  MessageSchema,
  TurnTraceSchema,
} from "../../src/index.js";

/**
 * The structural fast paths (adapters' reads, `MessageStore`'s input) must never accept what
 * core's schema would reject, and must return exactly what the schema returns (values, filled
 * defaults and key order) whenever they answer. Checked over valid records, records whose nested
 * objects come in another key order (as `jsonb` returns them), and hundreds of mutations of them,
 * in both modes (`copy` false for reads, true for input).
 */

type Obj = Record<string, unknown>;

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { k: value };
  return value;
}

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  "",
  "x",
  "x".repeat(64),
  "x".repeat(65),
  "x".repeat(257),
  "\ud800",
  0,
  -0,
  1.5,
  -1,
  2,
  -2,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  true,
  [],
  [1],
  ["a", 1],
  ["\udc00"],
  {},
  { a: 1 },
  JSON.parse('{"__proto__": 1}'),
  nested(MAX_JSON_DEPTH - 1),
  nested(MAX_JSON_DEPTH),
  nested(MAX_JSON_DEPTH + 1),
  [{ name: "a" }],
  [{ name: "", attributes: [] }],
  [{ name: "a", attributes: [], extra: 1 }],
  [{ toolCallId: "c", toolName: "t", arguments: {} }],
  [{ toolCallId: "c", toolName: "t", arguments: [], result: null }],
  [0, -0, 1],
  [Number.NaN],
  "robot",
  "agent_loop",
  "user",
];

const message: Obj = {
  id: "m1",
  conversationId: "c1",
  userId: "u1",
  tenantId: "t1",
  role: "assistant",
  originalContent: "hello \u0000 world",
  enhancedMessage: null,
  explicitContext: "ctx",
  episodeId: null,
  isFlagged: false,
  isContinuation: true,
  invokedFlows: ["f"],
  invokedTools: [],
  reasoningSteps: ["a", "b"],
  entities: [{ name: "Paris", attributes: ["city"] }],
  intent: null,
  sentiment: "neutral",
  sentimentScore: -0.5,
  timestamp: 1_700_000_000_000,
  toolCalls: [
    {
      toolCallId: "call-1",
      toolName: "lookup",
      arguments: { "a.b": [1, { $c: null }] },
      result: 3,
    },
  ],
  toolCallId: null,
  toolName: null,
  toolArguments: { q: ["x", { y: null }] },
  tags: ["a", "b"],
  metadata: { nested: nested(10), "": "" },
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  embedding: [0.25, -1, 1e-300],
  deletedAt: null,
};

const llmCall: Obj = {
  purpose: "agent_loop",
  model: "gpt",
  promptTokens: 10,
  completionTokens: 5,
  latencyMs: 1.5,
  costUsd: null,
  startedAt: 5,
  error: null,
};

const trace: Obj = {
  id: "t1",
  messageId: "m1",
  conversationId: "c1",
  agentId: "a1",
  userId: null,
  tenantId: "t1",
  timestamp: 10,
  totalTokens: 15,
  totalLatencyMs: 0,
  llmCalls: [llmCall],
  taskEmissions: ["x"],
  toolTraces: [
    {
      toolName: "lookup",
      input: { q: ["a", 1] },
      generationAttempts: [{ attempt: 1, script: "s", error: null, llmCall }],
      finalScript: null,
      finalData: { ok: [true] },
      stdout: "out",
      traceback: null,
      outputBytes: 3,
      peakMemoryBytes: null,
      durationMs: 2.5,
      exitCode: -1,
    },
  ],
  slotEvents: [{ slot: "s" }],
  flowEvents: [],
  errors: [{ message: "boom" }],
  reasoningSteps: [],
  metadata: {},
  deletedAt: 12,
};

const conversationRecord: Obj = {
  id: "c1",
  userId: "u1",
  tenantId: null,
  agentId: "a1",
  title: null,
  description: "about refunds",
  status: "archived",
  createdAt: 1,
  updatedAt: 2,
  deletedAt: 5,
  tags: ["t"],
  metadata: { k: "v" },
};
const conversation: Obj = { ...conversationRecord, lastActivityAt: 3 };

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** Every top-level and one-level-down field replaced by every odd value (and removed). */
function mutations(base: Obj): Obj[] {
  const out: Obj[] = [];
  const set = (target: Obj, key: string, value: unknown) => {
    if (value === undefined) delete target[key];
    else target[key] = value;
  };
  for (const key of Object.keys(base)) {
    for (const value of ODD_VALUES) {
      const copy = clone(base);
      set(copy, key, value);
      out.push(copy);
    }
    const inner = base[key];
    const first = Array.isArray(inner) ? inner[0] : inner;
    if (first && typeof first === "object" && !Array.isArray(first)) {
      for (const innerKey of Object.keys(first)) {
        for (const value of ODD_VALUES) {
          const copy = clone(base);
          const target = Array.isArray(copy[key]) ? (copy[key] as Obj[])[0]! : (copy[key] as Obj);
          set(target, innerKey, value);
          out.push(copy);
        }
      }
    }
  }
  return out;
}

/** The keys of every nested object reversed, as `jsonb` may return them. */
function reorderedNested(base: Obj): Obj {
  const reverse = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(reverse);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.entries(v as Obj)
        .reverse()
        .map(([k, x]) => [k, reverse(x)]),
    );
  };
  const out: Obj = {};
  for (const [k, v] of Object.entries(clone(base))) out[k] = reverse(v);
  return out;
}

function withEmbedding(base: Obj): Obj {
  // JSON cannot carry -0 or a lone surrogate in the clone above; add them directly.
  return { ...base, embedding: [1, -0] };
}

type Check = (value: unknown, copy?: boolean) => unknown;

const MODELS = [
  { name: "message", base: message, schema: MessageSchema, check: canonicalMessage as Check },
  { name: "turn trace", base: trace, schema: TurnTraceSchema, check: canonicalTurnTrace as Check },
  {
    name: "conversation",
    base: conversation,
    schema: ConversationSchema,
    check: canonicalConversation as Check,
  },
  {
    name: "conversation record",
    base: conversationRecord,
    schema: ConversationInputSchema,
    check: canonicalConversationRecord as Check,
  },
];

describe.each(
  MODELS.flatMap((m) => [
    { ...m, copy: false, mode: "read" },
    { ...m, copy: true, mode: "input" },
  ]),
)("structural check of a $name ($mode)", ({ base, schema, check, copy }) => {
  /** The fast path's answer equals the schema's output, key order included. */
  function expectSameAsSchema(candidate: Obj, fast: unknown): void {
    const parsed = schema.safeParse(candidate);
    expect(parsed.success, JSON.stringify(candidate)).toBe(true);
    expect(fast).toEqual(parsed.data);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
  }

  it(copy ? "returns a valid record as a new object" : "returns a valid record as it is", () => {
    const row = clone(base);
    if (copy) {
      const fast = check(row, true) as Obj;
      expect(fast).not.toBe(row);
      // Nothing but free-form JSON is shared with the input, as with the schema's output.
      for (const key of Object.keys(row)) {
        const value = row[key];
        if (Array.isArray(value) && value.length > 0) expect(fast[key]).not.toBe(value);
      }
    } else {
      expect(check(row, false)).toBe(row);
    }
    expectSameAsSchema(clone(base), check(clone(base), copy));
  });

  it("puts nested model objects back in schema order", () => {
    const row = reorderedNested(base);
    const fast = check(row, copy);
    expect(fast).toBeDefined();
    expectSameAsSchema(row, fast);
  });

  it("answers nothing the schema would reject or change", () => {
    const candidates = [...mutations(base), withEmbedding(base), ...oddShapes(base)];
    const lone = clone(base);
    lone.id = "\ud800";
    candidates.push(lone);
    let accepted = 0;
    for (const candidate of candidates) {
      const fast = check(candidate as Obj, copy);
      if (fast === undefined) continue;
      accepted++;
      expectSameAsSchema(candidate, fast);
    }
    // The check is not vacuous: some mutations are valid and take the fast path.
    expect(accepted).toBeGreaterThan(5);
    expect(candidates.length - accepted).toBeGreaterThan(100);
  });
});

/** Inputs a JavaScript caller can make that JSON cannot: odd prototypes, symbols, holes, getters. */
function oddShapes(base: Obj): Obj[] {
  class Model {}
  const out: Obj[] = [];
  out.push(Object.assign(new Model(), clone(base)) as Obj);
  out.push(Object.assign(Object.create(null), clone(base)));
  out.push({ ...clone(base), [Symbol("s")]: 1 });
  out.push({ ...clone(base), extra: undefined });
  const withGetter = clone(base);
  Object.defineProperty(withGetter, "id", { get: () => "g1", enumerable: true });
  out.push(withGetter);
  for (const key of Object.keys(base)) {
    if (Array.isArray(base[key])) {
      // biome-ignore lint/suspicious/noSparseArray: a hole is the point
      out.push({ ...clone(base), [key]: [, ...(clone(base[key]) as unknown[])] });
    } else if (base[key] !== null && typeof base[key] === "object") {
      out.push({ ...clone(base), [key]: Object.assign(new Model(), clone(base[key])) });
      out.push({ ...clone(base), [key]: new Date(0) });
    }
    out.push({ ...clone(base), [key]: undefined });
  }
  return out;
}

describe("input fast path: defaults and copies", () => {
  it("fills every default of a minimal message as the schema does", () => {
    const minimal = {
      id: "m",
      conversationId: "c",
      userId: "u",
      role: "user",
      originalContent: "hi",
      timestamp: 1,
    };
    const fast = canonicalMessage(minimal, true);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(MessageSchema.parse(minimal)));
  });

  it("fills every default of a minimal trace, tool trace and llm call", () => {
    const minimal = {
      id: "t",
      messageId: "m",
      conversationId: "c",
      agentId: "a",
      timestamp: 1,
      totalTokens: 0,
      totalLatencyMs: 0,
      llmCalls: [
        { purpose: "other", model: "m", promptTokens: 0, completionTokens: 0, latencyMs: 0 },
      ],
      toolTraces: [{ toolName: "t", generationAttempts: [{ attempt: 1, script: "" }] }],
    };
    const fast = canonicalTurnTrace(minimal, true);
    expect(fast).toBeDefined();
    expect(JSON.stringify(fast)).toBe(JSON.stringify(TurnTraceSchema.parse(minimal)));
  });

  it("gives defaults that are new objects each time", () => {
    const minimal = {
      id: "m",
      conversationId: "c",
      userId: "u",
      role: "user",
      originalContent: "",
      timestamp: 0,
    };
    const a = canonicalMessage(minimal, true)!;
    const b = canonicalMessage(minimal, true)!;
    expect(a.metadata).not.toBe(b.metadata);
    expect(a.entities).not.toBe(b.entities);
  });

  it("normalises -0 in an embedding and copies it", () => {
    const input = { ...clone(message), embedding: [1, -0] };
    const fast = canonicalMessage(input, true)!;
    expect(Object.is(fast.embedding![1], 0)).toBe(true);
    expect(fast.embedding).not.toBe(input.embedding);
  });
});
