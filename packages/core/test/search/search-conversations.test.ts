import { describe, expect, it } from "vitest";
import { containsFolded, foldAscii } from "../../src/adapter.js";
import { MAX_SEARCH_TEXT, UnsupportedOperationError, ValidationError } from "../../src/index.js";
import { recordingStore } from "../support/recording-driver.js";

describe("text matching (foldAscii, containsFolded)", () => {
  it("folds A-Z only: other letters, digits and symbols stay as they are", () => {
    expect(foldAscii("Hello ÉCOLE Σ İ ẞ 42 %_[")).toBe("hello École Σ İ ẞ 42 %_[");
    expect(containsFolded("Refund for ORDER #4512", foldAscii("order #45"))).toBe(true);
    expect(containsFolded("École", foldAscii("école"))).toBe(false);
    expect(containsFolded("100%", foldAscii("0%"))).toBe(true);
    expect(containsFolded("abc", foldAscii("a%c"))).toBe(false);
    expect(containsFolded(null, "x")).toBe(false);
  });
});

async function store(capabilities = {}) {
  const s = recordingStore({ capabilities });
  for (const [id, userId, title, at] of [
    ["c1", "u1", "Refund request", 10],
    ["c2", "u1", null, 30],
    ["c3", "u2", "refund again", 20],
  ] as const) {
    await s.storeConversation({ id, userId, title, createdAt: at, updatedAt: at });
  }
  await s.storeMessage({
    id: "m1",
    conversationId: "c2",
    userId: "u1",
    role: "user",
    originalContent: "I want a REFUND",
    timestamp: 30,
  });
  s.driver.calls.length = 0;
  return s;
}

describe("searchConversations (core's part)", () => {
  it("pages with conversation cursors, asking the driver for limit + 1 rows", async () => {
    const s = await store();
    const first = await s.searchConversations({ text: "refund", limit: 2 });
    expect(
      first.items.map((h) => [h.conversation.id, h.titleMatch, h.message?.id ?? null]),
    ).toEqual([
      ["c2", false, "m1"],
      ["c3", true, null],
    ]);
    expect(s.driver.pages[0]).toEqual({ after: null, take: 3 });
    const second = await s.searchConversations({
      text: "refund",
      limit: 2,
      cursor: first.nextCursor,
    });
    expect(second.items.map((h) => h.conversation.id)).toEqual(["c1"]);
    expect(second.nextCursor).toBeNull();
    expect(s.driver.pages[1]).toEqual({ after: { lastActivityAt: 20, id: "c3" }, take: 3 });
  });

  it("defaults to 20 hits, and validates before any driver call", async () => {
    const s = await store();
    await s.searchConversations({ text: "x" });
    expect(s.driver.pages[0]!.take).toBe(21);
    s.driver.calls.length = 0;
    for (const bad of [
      { text: "" },
      { text: "a".repeat(MAX_SEARCH_TEXT + 1) },
      { text: "a", limit: 0 },
      { text: "a", limit: 1001 },
      { text: "a", userId: "" },
      { text: "a", cursor: "nope" },
      { text: "\ud800" },
      { text: "a", other: 1 },
    ]) {
      await expect(s.searchConversations(bad as never), JSON.stringify(bad)).rejects.toThrow(
        ValidationError,
      );
    }
    expect(s.driver.calls).toEqual([]);
  });

  it("rejects with UnsupportedOperationError without capabilities.textSearch (views too)", async () => {
    const s = await store({ textSearch: false });
    await expect(s.searchConversations({ text: "refund" })).rejects.toThrow(
      UnsupportedOperationError,
    );
    await expect(s.forUser("u1").searchConversations({ text: "refund" })).rejects.toThrow(
      /does not support text search/,
    );
    expect(s.driver.calls).toEqual([]);
  });

  it("a view passes its scope down as the filter; a contradicting filter gives an empty page", async () => {
    const s = await store();
    const page = await s.forUser("u1").searchConversations({ text: "refund" });
    expect(page.items.map((h) => h.conversation.id)).toEqual(["c2", "c1"]);
    expect(s.driver.calls.at(-1)!.request).toMatchObject({
      scope: { userId: "u1" },
      filter: { text: "refund" },
    });
    s.driver.calls.length = 0;
    const none = await s.forUser("u1").searchConversations({ text: "refund", userId: "u2" });
    expect(none).toEqual({ items: [], nextCursor: null });
    expect(s.driver.calls).toEqual([]);
  });
});
