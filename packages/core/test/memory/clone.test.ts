import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  CONVERSATION_FIELDS,
  MESSAGE_FIELDS,
  type ModelFields,
  TURN_TRACE_FIELDS,
} from "../../src/adapter.js";
import { ConversationInputSchema } from "../../src/index.js";
import {
  cloneConversation,
  cloneJson,
  cloneMessage,
  cloneTrace,
  modelCopier,
} from "../../src/memory.js";
import { message, trace } from "../support/builders.js";
import { assertFreshBuild, DIST_ENTRY } from "../support/run-node.js";

/** Every object and array reachable from `value`. */
function containers(value: unknown, out: object[] = []): object[] {
  if (typeof value !== "object" || value === null) return out;
  out.push(value);
  for (const child of Object.values(value)) containers(child, out);
  return out;
}

const full = message({
  id: "m1",
  timestamp: 5,
  entities: [{ name: "Paris", attributes: ["city"] }],
  toolCalls: [{ toolCallId: "t", toolName: "n", arguments: { a: [1, { b: 2 }] }, result: [3] }],
  invokedFlows: ["f"],
  metadata: { "a.b": { $x: 1 }, k: [null] },
  embedding: [0.5, -1],
});
const fullTrace = trace({
  id: "t1",
  messageId: "m1",
  timestamp: 5,
  llmCalls: [
    { purpose: "agent_loop", model: "m", promptTokens: 1, completionTokens: 2, latencyMs: 3 },
  ],
  toolTraces: [
    {
      toolName: "x",
      generationAttempts: [
        {
          attempt: 1,
          script: "s",
          llmCall: {
            purpose: "other",
            model: "m",
            promptTokens: 0,
            completionTokens: 0,
            latencyMs: 0,
          },
        },
      ],
      finalData: { d: [1] },
    },
  ],
  slotEvents: [{ s: 1 }],
  errors: [{ e: { f: 1 } }],
  metadata: { m: {} },
});

const fullConversation = {
  id: "c1",
  userId: "u1",
  agentId: "a",
  title: "t",
  createdAt: 1,
  updatedAt: 2,
  tags: ["x"],
  metadata: { n: { m: [1] } },
};

const copy = (table: ModelFields, generate: boolean) =>
  modelCopier<unknown>(table, generate) as (v: unknown) => unknown;

describe.each([
  { name: "cloneMessage", value: full, clone: cloneMessage as (v: unknown) => unknown },
  { name: "cloneTrace", value: fullTrace, clone: cloneTrace as (v: unknown) => unknown },
  {
    name: "cloneConversation",
    value: fullConversation,
    clone: cloneConversation as (v: unknown) => unknown,
  },
  { name: "interpreted message copy", value: full, clone: copy(MESSAGE_FIELDS, false) },
  { name: "interpreted trace copy", value: fullTrace, clone: copy(TURN_TRACE_FIELDS, false) },
  {
    name: "interpreted conversation copy",
    value: fullConversation,
    clone: copy(CONVERSATION_FIELDS, false),
  },
])("$name", ({ value, clone }) => {
  it("copies exactly what cloneJson copies, key order included", () => {
    const copy = clone(value);
    expect(copy).toEqual(cloneJson(value));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
  });

  it("shares no object or array with the original", () => {
    const original = new Set(containers(value));
    expect(containers(clone(value)).filter((c) => original.has(c))).toEqual([]);
  });
});

it.each([
  ["generated", cloneMessage],
  ["interpreted", copy(MESSAGE_FIELDS, false)],
])("%s message copy keeps -0 in the embedding and null as null", (_, clone) => {
  const copied = clone({ ...full, embedding: [-0, 1] }) as typeof full;
  expect(Object.is(copied.embedding![0], -0)).toBe(true);
  expect((clone({ ...full, embedding: null }) as typeof full).embedding).toBeNull();
});

it.each([
  ["generated", cloneConversation as (v: unknown) => unknown],
  ["interpreted", copy(CONVERSATION_FIELDS, false)],
])("%s conversation copy puts the keys in the model's order", (_, clone) => {
  // Core's input schema appends a defaulted `updatedAt` last; the file shows the model's order.
  const input = ConversationInputSchema.parse({ id: "c1", userId: "u1", createdAt: 1 });
  expect(Object.keys(input).at(-1)).toBe("updatedAt");
  expect(Object.keys(clone(input) as object)).toEqual(Object.keys(CONVERSATION_FIELDS));
});

it("copies by field table where code generation is disallowed", () => {
  // The built package, as an application loads it, under Node's flag that forbids new Function.
  assertFreshBuild();
  const script = `
    const { MessageStore } = await import(${JSON.stringify(DIST_ENTRY)});
    await import("@message-store/core/memory");
    const store = await MessageStore.initialize({ storage: "memory" });
    await store.storeConversation({ id: "c", userId: "u" });
    await store.storeMessage({ id: "m", conversationId: "c", userId: "u", role: "user",
      originalContent: "hi", timestamp: 1, entities: [{ name: "e" }], metadata: { k: [1] } });
    const [m] = await store.getImmediateContext("c", 1);
    m.metadata.k.push(2);
    m.entities[0].attributes.push("x");
    process.stdout.write(JSON.stringify(await store.getMessage("m")));`;
  const result = spawnSync(
    process.execPath,
    ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script],
    { cwd: new URL("../..", import.meta.url).pathname, encoding: "utf8" },
  );
  expect(result.stderr).toBe("");
  const stored = JSON.parse(result.stdout);
  expect(stored.metadata).toEqual({ k: [1] });
  expect(stored.entities).toEqual([{ name: "e", attributes: [] }]);
});
