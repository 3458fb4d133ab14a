import { describe, expect, it } from "vitest";
import { findJsonProblem } from "../../src/adapter.js";
import { JsonObjectSchema, JsonSchema, MAX_JSON_DEPTH } from "../../src/index.js";
import { assertFreshBuild, DIST_ENTRY, runNode } from "../support/run-node.js";

class Point {
  x = 1;
}

const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
const cyclicArray: unknown[] = [];
cyclicArray.push(cyclicArray);

describe("JsonSchema / JsonObjectSchema", () => {
  const good = {
    s: "a\u0000b",
    "\u0000key": 1,
    "$dollar.dot": { ".": [true, false, null, -0.5, 1e300] },
    nested: [[[]], {}],
    emoji: "😀",
  };

  it("accepts plain JSON, NUL and $/. keys, returning it unchanged", () => {
    expect(JsonObjectSchema.parse(good)).toEqual(good);
    expect(JsonSchema.parse(good)).toEqual(good);
    for (const v of [null, 0, "", [], true]) expect(JsonSchema.parse(v)).toEqual(v);
  });

  it("accepts an object with a null prototype", () => {
    const o = Object.assign(Object.create(null), { a: 1 });
    expect(JsonObjectSchema.safeParse(o).success).toBe(true);
  });

  it("accepts a shared (non-cyclic) reference", () => {
    const shared = { k: 1 };
    expect(JsonSchema.safeParse({ a: shared, b: [shared, shared] }).success).toBe(true);
  });

  it.each([
    ["BigInt", { v: 1n }, ["v"]],
    ["cyclic object", { a: cyclic }, ["a", "self"]],
    ["cyclic array", { a: cyclicArray }, ["a", 0]],
    ["undefined", { v: undefined }, ["v"]],
    ["function", { v: () => 1 }, ["v"]],
    ["symbol", { v: Symbol("s") }, ["v"]],
    ["Date", { v: new Date(0) }, ["v"]],
    ["Map", { v: new Map() }, ["v"]],
    ["class instance", { v: new Point() }, ["v"]],
    ["NaN", { v: NaN }, ["v"]],
    ["Infinity", { a: [1, -Infinity] }, ["a", 1]],
    ["lone surrogate in a value", { a: { b: "\uD800" } }, ["a", "b"]],
    ["lone surrogate in a key", { a: { "k\uDC00": 1 } }, ["a", "k\uDC00"]],
  ])("rejects %s with its path", (_, value, path) => {
    const result = JsonObjectSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(path);
    expect(findJsonProblem(value)?.path).toEqual(path);
  });

  it("JsonObjectSchema rejects non-objects", () => {
    for (const v of [null, 1, "s", [1]]) expect(JsonObjectSchema.safeParse(v).success).toBe(false);
  });

  it("accepts nesting up to MAX_JSON_DEPTH and rejects one level more, naming the path", () => {
    let ok: unknown = "leaf";
    for (let i = 0; i < MAX_JSON_DEPTH; i++) ok = [ok];
    expect(findJsonProblem(ok)).toBeNull();
    let tooDeep: unknown = { leaf: true };
    for (let i = 0; i < MAX_JSON_DEPTH; i++) tooDeep = { n: tooDeep };
    const problem = findJsonProblem(tooDeep);
    expect(problem?.message).toMatch(/deeper than 64/);
    expect(problem?.path).toHaveLength(MAX_JSON_DEPTH);
  });

  it("reports the full path of a problem inside a deep value", () => {
    let bad: unknown = { x: undefined };
    for (let i = 0; i < 40; i++) bad = { n: bad };
    expect(findJsonProblem(bad)?.path).toEqual([...Array(40).fill("n"), "x"]);
  });

  // A JSON.parse'd request body can nest this deep; validation must reject or accept it, not
  // crash the process. Run in a child with a small heap so a failure cannot take vitest down.
  it("checks a 50k-deep value in bounded memory (64 MB heap)", () => {
    assertFreshBuild();
    const run = runNode(
      `import { JsonObjectSchema } from ${JSON.stringify(DIST_ENTRY)};
       let deep = "leaf";
       for (let i = 0; i < 50000; i++) deep = [deep];
       const r = JsonObjectSchema.safeParse({ deep });
       console.log(r.success ? "accepted" : "rejected");`,
      { heapMb: 64 },
    );
    expect(run.stderr).not.toMatch(/heap out of memory/);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe("rejected");
  });

  // JSON.parse('{"__proto__": …}') makes an own key; it must be kept or rejected, never dropped.
  it("does not silently drop an own __proto__ key", () => {
    for (const text of ['{"__proto__":{"x":1}}', '{"a":{"__proto__":[1]}}']) {
      const input = JSON.parse(text);
      const result = JsonObjectSchema.safeParse(input);
      if (result.success) expect(JSON.stringify(result.data)).toBe(text);
    }
  });
});
