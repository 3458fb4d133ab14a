import { compareIds } from "@message-store/core/adapter";
import { describe, expect, it } from "vitest";
import { idKey } from "../src/id-key.js";
import { conv, openFixture, traceOf } from "./helpers.js";

/** Ids whose code-point order differs from UTF-16 order. */
const TRICKY = [
  "a",
  "B",
  "é",
  "😀",
  "\uFFFD",
  "ab",
  "Z",
  "\uD7FF",
  "\uD000",
  "\uE000",
  "\u{10FFFF}",
  "a\u0000",
  "",
];

function randomId(random: () => number): string {
  const pools = [
    [0x20, 0x7f],
    [0x80, 0xcfff],
    [0xd000, 0xd7ff],
    [0xe000, 0xffff],
    [0x10000, 0x10ffff],
  ] as const;
  let s = "";
  const n = 1 + Math.floor(random() * 6);
  for (let i = 0; i < n; i++) {
    const [lo, hi] = pools[Math.floor(random() * pools.length)]!;
    s += String.fromCodePoint(lo + Math.floor(random() * (hi - lo)));
  }
  return s;
}

const utf16 = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const utf8 = (a: string, b: string) =>
  Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

describe("idKey", () => {
  it("orders like code points under UTF-16 and UTF-8 comparison, and is injective", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const ids = [...TRICKY, ...Array.from({ length: 2_000 }, () => randomId(random))];
    const expected = [...new Set(ids)].sort(compareIds);
    const keys = new Map(expected.map((id) => [idKey(id), id]));
    expect(keys.size).toBe(expected.length);
    expect([...keys.keys()].sort(utf16).map((k) => keys.get(k))).toEqual(expected);
    expect([...keys.keys()].sort(utf8).map((k) => keys.get(k))).toEqual(expected);
    for (const key of keys.keys()) expect(key).toMatch(/^[\u0000-\uD7FF]*$/);
  });

  it("keeps ids below U+D000 unchanged", () => {
    expect(idKey("conv-123_é")).toBe("conv-123_é");
  });

  it("conversations and traces list in code-point order on the server under test", async () => {
    const f = await openFixture();
    const ids = TRICKY.filter((id) => id !== "");
    const asc = [...ids].sort(compareIds);
    for (const id of ids) await f.store.storeConversation(conv(id, { userId: "order" }));
    const listed = (await f.store.getConversationsByUserId("order")).items.map((c) => c.id);
    expect(listed).toEqual(asc);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await f.store.listConversations({ limit: 2, cursor });
      paged.push(...page.items.map((c) => c.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(asc);
    await f.store.storeMessage({
      id: "m",
      conversationId: "a",
      userId: "order",
      role: "assistant",
      originalContent: "x",
      timestamp: 0,
    });
    await f.store.storeConversation(conv("t-holder"));
    const messages = ids.map((id) => ({
      id: `m-${id}`,
      conversationId: "t-holder",
      userId: "user-1",
      role: "assistant" as const,
      originalContent: "x",
      timestamp: 1,
    }));
    await f.store.storeMessages(messages);
    for (const id of ids) await f.store.storeTurnTrace(traceOf(id, `m-${id}`, "t-holder"));
    const traces: string[] = [];
    cursor = null;
    do {
      const page = await f.store.getTurnTracesByAgentId("agent-1", { limit: 3, cursor });
      traces.push(...page.items.map((t) => t.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(traces).toEqual([...asc].reverse());
  });
});
