import { describe, expect, it } from "vitest";
import {
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  compareTraceKeys,
} from "../../src/adapter.js";

/** Deterministic PRNG (mulberry32) so a failure is reproducible. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Code points chosen to stress the UTF-16 vs UTF-8 difference: ASCII, BMP below the surrogates,
// U+E000–U+FFFF (above the surrogates in UTF-16 but below astral in UTF-8), and astral.
const RANGES: [number, number][] = [
  [0x00, 0x7f],
  [0x80, 0x7ff],
  [0x800, 0xd7ff],
  [0xe000, 0xffff],
  [0x10000, 0x10ffff],
];

function randomString(next: () => number): string {
  const length = Math.floor(next() * 6);
  let s = "";
  for (let i = 0; i < length; i++) {
    const [lo, hi] = RANGES[Math.floor(next() * RANGES.length)]!;
    s += String.fromCodePoint(lo + Math.floor(next() * (hi - lo + 1)));
  }
  return s;
}

const sign = (n: number) => Math.sign(n);
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe("compareIds", () => {
  it("matches UTF-8 byte order on 50 000 random pairs", () => {
    const next = rng(0xc0ffee);
    for (let i = 0; i < 50_000; i++) {
      const a = randomString(next);
      // Share a prefix half the time so the first differing unit is deep in the string.
      const b =
        next() < 0.5
          ? a.slice(0, Math.floor(next() * (a.length + 1))) + randomString(next)
          : randomString(next);
      const expected = sign(byteOrder(a, b));
      if (sign(compareIds(a, b)) !== expected) {
        expect.fail(`compareIds(${JSON.stringify(a)}, ${JSON.stringify(b)}) should be ${expected}`);
      }
    }
  });

  it("orders the classic counterexamples to UTF-16 order", () => {
    expect(compareIds("\uFFFF", "😀")).toBeLessThan(0); // plain < says the opposite
    expect("\uFFFF" < "😀").toBe(false);
    expect(compareIds("\uE000", "\uD7FF")).toBeGreaterThan(0);
    expect(compareIds("a", "ab")).toBeLessThan(0);
    expect(compareIds("ab", "a")).toBeGreaterThan(0);
    expect(compareIds("", "")).toBe(0);
    expect(compareIds("😀", "😀")).toBe(0);
  });

  it("sorting with it equals sorting the UTF-8 bytes", () => {
    const next = rng(42);
    const ids = Array.from({ length: 2_000 }, () => randomString(next));
    expect([...ids].sort(compareIds)).toEqual([...ids].sort(byteOrder));
  });
});

describe("key comparators", () => {
  it("messages: timestamp asc, then sequence asc", () => {
    expect(
      compareMessageKeys({ timestamp: 1, sequence: 9 }, { timestamp: 2, sequence: 0 }),
    ).toBeLessThan(0);
    expect(
      compareMessageKeys({ timestamp: 2, sequence: 1 }, { timestamp: 2, sequence: 0 }),
    ).toBeGreaterThan(0);
    expect(compareMessageKeys({ timestamp: 2, sequence: 1 }, { timestamp: 2, sequence: 1 })).toBe(
      0,
    );
  });

  it("conversations: lastActivityAt desc, then id asc by code point", () => {
    const sorted = [
      { lastActivityAt: 1, id: "a" },
      { lastActivityAt: 5, id: "😀" },
      { lastActivityAt: 5, id: "\uFFFF" },
      { lastActivityAt: 5, id: "b" },
    ].sort(compareConversationKeys);
    expect(sorted.map((k) => k.id)).toEqual(["b", "\uFFFF", "😀", "a"]);
  });

  it("traces: timestamp desc, then id desc by code point", () => {
    const sorted = [
      { timestamp: 1, id: "z" },
      { timestamp: 5, id: "\uFFFF" },
      { timestamp: 5, id: "😀" },
      { timestamp: 5, id: "a" },
    ].sort(compareTraceKeys);
    expect(sorted.map((k) => k.id)).toEqual(["😀", "\uFFFF", "a", "z"]);
  });
});
