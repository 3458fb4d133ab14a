import { describe, expect, it } from "vitest";
import {
  CountSchema,
  FiniteSchema,
  IdSchema,
  NonNegativeSchema,
  StringListSchema,
  TextSchema,
  TimestampSchema,
} from "../../src/index.js";

const LONE_HIGH = "a\uD800b";
const LONE_LOW = "\uDC00";

describe("IdSchema", () => {
  it.each([
    ["1 char", "x"],
    ["256 chars", "x".repeat(256)],
    ["astral", "😀"],
    ["NUL", "\u0000"],
    ["$ and .", "$a.b"],
  ])("accepts %s", (_, id) => {
    expect(IdSchema.parse(id)).toBe(id);
  });

  it.each([
    ["empty", ""],
    ["257 chars", "x".repeat(257)],
    ["lone high surrogate", LONE_HIGH],
    ["lone low surrogate", LONE_LOW],
    ["number", 1],
    ["null", null],
    ["undefined", undefined],
    ["operator object", { $ne: null }],
    ["array", ["a"]],
  ])("rejects %s", (_, id) => {
    expect(IdSchema.safeParse(id).success).toBe(false);
  });

  it("counts characters (code points), not UTF-16 units", () => {
    expect(IdSchema.safeParse("😀".repeat(256)).success).toBe(true);
    expect(IdSchema.safeParse("😀".repeat(257)).success).toBe(false);
  });
});

describe("TextSchema", () => {
  it("accepts NUL, empty and astral text", () => {
    for (const s of ["", "\u0000", "a\u0000b", "😀"]) expect(TextSchema.parse(s)).toBe(s);
  });
  it("rejects lone surrogates", () => {
    expect(TextSchema.safeParse(LONE_HIGH).success).toBe(false);
    expect(TextSchema.safeParse(LONE_LOW).success).toBe(false);
    expect(StringListSchema.safeParse(["ok", LONE_LOW]).success).toBe(false);
  });
});

describe("number schemas", () => {
  it.each([NaN, Infinity, -Infinity, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, "1"])(
    "TimestampSchema rejects %s",
    (v) => {
      expect(TimestampSchema.safeParse(v).success).toBe(false);
    },
  );
  it("TimestampSchema accepts 0 and MAX_SAFE_INTEGER", () => {
    expect(TimestampSchema.parse(0)).toBe(0);
    expect(TimestampSchema.parse(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });
  it("CountSchema rejects negatives, fractions, NaN", () => {
    for (const v of [-1, 0.5, NaN, Infinity]) expect(CountSchema.safeParse(v).success).toBe(false);
    expect(CountSchema.parse(0)).toBe(0);
  });
  it("NonNegativeSchema accepts fractions, rejects negatives and non-finite", () => {
    expect(NonNegativeSchema.parse(0.25)).toBe(0.25);
    for (const v of [-0.1, NaN, Infinity]) {
      expect(NonNegativeSchema.safeParse(v).success).toBe(false);
    }
  });
  it("FiniteSchema accepts any finite number only", () => {
    expect(FiniteSchema.parse(-Number.MAX_VALUE)).toBe(-Number.MAX_VALUE);
    for (const v of [NaN, Infinity, -Infinity]) {
      expect(FiniteSchema.safeParse(v).success).toBe(false);
    }
  });
});
