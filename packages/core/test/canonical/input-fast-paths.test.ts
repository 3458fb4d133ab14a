import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fastContextSize, fastNoOptions } from "../../src/canonical/input-fast-paths.js";
import { IdSchema } from "../../src/index.js";
import { ContextOptionsSchema } from "../../src/models/queries.js";
import { parseId } from "../../src/validation.js";

/** The argument fast paths answer exactly what the schemas answer, or leave it to them. */

const ODD: unknown[] = [
  undefined,
  null,
  "",
  "a",
  "x".repeat(256),
  "x".repeat(257),
  "\ud800",
  "ok\udc00",
  0,
  -0,
  1,
  -1,
  1.5,
  1_000_000,
  1_000_001,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  true,
  [],
  {},
  { compress: undefined },
  { compress: { maxChars: 10, keepChars: 2 } },
  { other: 1 },
  Object.create({ inherited: 1 }),
  new Date(0),
  new String("a"),
];

function agree(fast: (v: unknown) => unknown, schema: z.ZodType): number {
  let answered = 0;
  for (const value of ODD) {
    const answer = fast(value);
    if (answer === undefined) continue;
    answered++;
    const parsed = schema.safeParse(value);
    expect(parsed.success, String(value)).toBe(true);
    expect(answer).toEqual(parsed.data);
  }
  return answered;
}

describe("argument fast paths", () => {
  it("ids: the same answer as IdSchema, and the same errors", () => {
    for (const value of ODD) {
      const viaZod = IdSchema.safeParse(value);
      if (viaZod.success) expect(parseId(value, "id")).toBe(viaZod.data);
      else expect(() => parseId(value, "id")).toThrow(/invalid id/);
    }
  });

  it("context size: never answers what the schema rejects", () => {
    const answered = agree(fastContextSize, z.number().int().min(0).max(1_000_000));
    expect(answered).toBeGreaterThanOrEqual(4);
    expect(fastContextSize(1_000_001)).toBeUndefined();
    expect(fastContextSize(1.5)).toBeUndefined();
  });

  it("context options: only an empty plain object, as the schema outputs it", () => {
    expect(agree(fastNoOptions, ContextOptionsSchema)).toBe(1);
    expect(fastNoOptions({ compress: undefined })).toBeUndefined();
  });
});
