import { MessageSchema, TurnTraceSchema } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { cloneJson, cloneMessage, cloneTrace } from "../src/clone.js";
import { message, trace } from "./helpers.js";

/** Every object and array reachable from `value`. */
function containers(value: unknown, out: object[] = []): object[] {
  if (typeof value !== "object" || value === null) return out;
  out.push(value);
  for (const child of Object.values(value)) containers(child, out);
  return out;
}

const full = MessageSchema.parse(
  message("m1", "c1", 5, {
    entities: [{ name: "Paris", attributes: ["city"] }],
    toolCalls: [{ toolCallId: "t", toolName: "n", arguments: { a: [1, { b: 2 }] }, result: [3] }],
    invokedFlows: ["f"],
    metadata: { "a.b": { $x: 1 }, k: [null] },
    embedding: [0.5, -1],
  }),
);
const fullTrace = TurnTraceSchema.parse(
  trace("t1", "m1", "c1", 5, {
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
  }),
);

describe.each([
  { name: "cloneMessage", value: full, clone: cloneMessage as (v: unknown) => unknown },
  { name: "cloneTrace", value: fullTrace, clone: cloneTrace as (v: unknown) => unknown },
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
