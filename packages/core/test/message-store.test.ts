import { describe, expect, it } from "vitest";
import { cosineSimilarity } from "../src/adapter.js";
import {
  compressionHint,
  type MessageStore,
  NotFoundError,
  UnsupportedOperationError,
  ValidationError,
} from "../src/index.js";
import { cursors } from "../src/paging/cursor.js";
import { type RecordingDriver, recordingStore } from "./support/recording-driver.js";
import { msg, seeded } from "./support/store-fixtures.js";

type Store = MessageStore<RecordingDriver>;

describe("MessageStore (core plumbing over the memory driver)", () => {
  it.each<[string, (s: Store) => Promise<unknown>]>([
    ["storeConversation", (s) => s.storeConversation({ id: "c", userId: "u", extra: 1 } as never)],
    ["getConversation", (s) => s.getConversation(42 as never)],
    ["getConversationsByUserId bad limit", (s) => s.getConversationsByUserId("u", { limit: 0 })],
    [
      "getConversationsByUserId bad cursor",
      (s) => s.getConversationsByUserId("u", { cursor: "zz" }),
    ],
    ["listConversations bad userId", (s) => s.listConversations({ userId: "" })],
    [
      "listConversations conversation-key cursor",
      (s) =>
        s.listConversations({
          cursor: cursors.conversation.encode({ lastActivityAt: 1, id: "c" }),
        }),
    ],
    ["deleteConversation", (s) => s.deleteConversation({ $ne: null } as never)],
    ["storeMessage", (s) => s.storeMessage({ ...msg("m", 1), sentimentScore: 1.5 })],
    ["storeMessages", (s) => s.storeMessages([msg("a", 1), msg("b", NaN)])],
    [
      "storeMessages duplicate ids",
      (s) => s.storeMessages([msg("a", 1), msg("b", 1), msg("a", 2)]),
    ],
    ["getMessage", (s) => s.getMessage("x".repeat(257))],
    ["flagMessage", (s) => s.flagMessage("m", "yes" as never)],
    [
      "getMessagesByConversationId foreign cursor",
      (s) =>
        s.getMessagesByConversationId("c", {
          cursor: cursors.trace.encode({ timestamp: 1, id: "t" }),
        }),
    ],
    ["getImmediateContext negative", (s) => s.getImmediateContext("c", -1)],
    [
      "getImmediateContext options",
      (s) => s.getImmediateContext("c", 1, { compress: { maxChars: 0, keepChars: 0 } }),
    ],
    ["storeTurnTrace", (s) => s.storeTurnTrace({ id: "t" } as never)],
    ["getTurnTraceByMessageId", (s) => s.getTurnTraceByMessageId("")],
    ["getTurnTracesByAgentId", (s) => s.getTurnTracesByAgentId("a", { since: -1 })],
    ["queryTurnTraces", (s) => s.queryTurnTraces({ minTotalTokens: -1 })],
    ["summarizeUsage", (s) => s.summarizeUsage({ since: 0, until: 1, bucket: "week" } as never)],
    ["deleteUserData", (s) => s.deleteUserData(null as never)],
    ["searchMessages", (s) => s.searchMessages({ embedding: [NaN] })],
  ])("%s: invalid input is a ValidationError and no driver call is made", async (_, call) => {
    const store = await seeded();
    const error = await call(store).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/^\[message-store\] .*invalid /);
    expect(store.driver.calls).toEqual([]);
  });

  it("names the adapter in a ValidationError, also for a bad cursor", async () => {
    const store = await seeded();
    const messages = [
      await store.getMessage("").catch((e) => e.message),
      await store.getMessagesByConversationId("c1", { cursor: "garbage" }).catch((e) => e.message),
      await store.queryTurnTraces({ cursor: "garbage" }).catch((e) => e.message),
    ];
    for (const m of messages) expect(m).toMatch(/^\[message-store\] \[memory\] invalid /);
  });

  it("reports the duplicate id's position in a batch", async () => {
    const store = await seeded();
    const error = await store.storeMessages([msg("a", 1), msg("a", 2)]).catch((e) => e);
    expect(error.issues).toEqual([{ path: [1, "id"], message: "duplicate id in batch" }]);
  });

  it("hands the driver validated records with defaults filled", async () => {
    const store = await seeded();
    const stored = await store.storeMessage(msg("m1", 5));
    expect(stored).toMatchObject({
      isFlagged: false,
      toolCalls: [],
      embedding: null,
      metadata: {},
    });
    expect(store.driver.ops).toEqual(["storeMessages"]);
    expect(store.driver.calls[0]!.request.messages[0]).toMatchObject({ isFlagged: false });
  });

  it("storeMessages([]) and getImmediateContext(…, 0) resolve without a driver call", async () => {
    const store = await seeded();
    expect(await store.storeMessages([])).toEqual([]);
    expect(await store.getImmediateContext("c1", 0)).toEqual([]);
    expect(store.driver.calls).toEqual([]);
  });

  it("flagMessage on an unknown id throws NotFoundError with the adapter prefix", async () => {
    const store = await seeded();
    const error = await store.flagMessage("nope").catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('[message-store] [memory] message "nope" does not exist');
    await store.storeMessage(msg("m", 1));
    expect((await store.flagMessage("m")).isFlagged).toBe(true);
    expect((await store.flagMessage("m", false)).isFlagged).toBe(false);
  });

  it("pages messages through cursors, asking the driver for limit + 1 rows", async () => {
    const store = await seeded();
    await store.storeMessages([msg("a", 1), msg("b", 2), msg("c", 2), msg("d", 3), msg("e", 4)]);
    const seen: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await store.getMessagesByConversationId("c1", { limit: 2, cursor });
      seen.push(page.items.map((m) => m.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect(store.driver.pages.map((p) => p.take)).toEqual([3, 3, 3]);
    expect(store.driver.pages[0]!.after).toBeNull();
    // b is the second message received (sequence 1): the cursor is its keyset position.
    expect(store.driver.pages[1]!.after).toEqual({ timestamp: 2, sequence: 1 });
    const all = await store.getMessagesByConversationId("c1");
    expect(all.items).toHaveLength(5);
    expect(all.nextCursor).toBeNull();
    expect(store.driver.pages.at(-1)).toEqual({ after: null, take: null });
  });

  it("pages conversations and traces with their own cursor kinds", async () => {
    const store = await seeded();
    await store.storeConversation({ id: "c2", userId: "u1", createdAt: 1 });
    const first = await store.getConversationsByUserId("u1", { limit: 1 });
    expect(first.items.map((c) => c.id)).toEqual(["c1"]);
    const second = await store.getConversationsByUserId("u1", {
      limit: 1,
      cursor: first.nextCursor,
    });
    expect(second).toEqual({ items: [expect.objectContaining({ id: "c2" })], nextCursor: null });
    await store.storeMessages([msg("m1", 1), msg("m2", 2)]);
    for (const [id, messageId, ts] of [
      ["t1", "m1", 1],
      ["t2", "m2", 2],
    ] as const) {
      await store.storeTurnTrace({
        id,
        messageId,
        conversationId: "c1",
        agentId: "a",
        timestamp: ts,
        totalTokens: 0,
        totalLatencyMs: 0,
      });
    }
    const t1 = await store.getTurnTracesByAgentId("a", { limit: 1 });
    expect(t1.items.map((t) => t.id)).toEqual(["t2"]);
    await expect(
      store.getConversationsByUserId("u1", { cursor: t1.nextCursor }),
    ).rejects.toBeInstanceOf(ValidationError);
    const t2 = await store.getTurnTracesByAgentId("a", { limit: 1, cursor: t1.nextCursor });
    expect(t2).toEqual({ items: [expect.objectContaining({ id: "t1" })], nextCursor: null });
  });

  it("listConversations walks every conversation by id in code-point order", async () => {
    const store = await seeded();
    for (const [id, userId] of [
      ["😀", "u2"],
      ["\uFFFF", "u1"],
      ["a", "u2"],
    ]) {
      await store.storeConversation({ id: id!, userId: userId! });
    }
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.listConversations({ limit: 2, cursor });
      ids.push(...page.items.map((c) => c.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids).toEqual(["a", "c1", "\uFFFF", "😀"]);
    const u2 = await store.listConversations({ userId: "u2" });
    expect(u2).toEqual({
      items: [expect.objectContaining({ id: "a" }), expect.objectContaining({ id: "😀" })],
      nextCursor: null,
    });
  });

  it("getImmediateContext compresses long assistant messages on load only", async () => {
    const store = await seeded();
    const text = "h".repeat(20) + "x".repeat(1000) + "t".repeat(20);
    await store.storeMessages([
      msg("q", 1),
      msg("r", 2, { role: "assistant", originalContent: text }),
    ]);
    const [q, r] = await store.getImmediateContext("c1", 2, {
      compress: { maxChars: 100, keepChars: 20 },
    });
    expect(q!.originalContent).toBe("q");
    expect(r!.originalContent).toBe("h".repeat(20) + compressionHint("r", 1000) + "t".repeat(20));
    expect((await store.getMessage("r"))!.originalContent).toBe(text);
  });

  it("searchMessages: UnsupportedOperationError without the capability, no driver call", async () => {
    const store = await seeded({ capabilities: { semanticSearch: false } });
    const error = await store.searchMessages({ embedding: [1, 0] }).catch((e) => e);
    expect(error).toBeInstanceOf(UnsupportedOperationError);
    expect(error.message).toMatch(/^\[message-store\] \[memory\] /);
    expect(store.driver.calls).toEqual([]);
  });

  it("searchMessages: rounds scores, sorts by score then id, applies the limit", async () => {
    // A driver returning raw scores, every hit, worst first: what core must put in order.
    const store: Store = recordingStore({
      overrides: {
        searchMessages: async ({ query }) => {
          const page = await store.getMessagesByConversationId("c1");
          return page.items
            .map((message) => ({
              message,
              score: cosineSimilarity(message.embedding!, query.embedding)!,
            }))
            .sort((a, b) => a.score - b.score);
        },
      },
    });
    await store.storeConversation({ id: "c1", userId: "u1" });
    await store.storeMessages([
      msg("b", 1, { embedding: [1, 0] }),
      msg("a", 2, { embedding: [2, 0] }),
      msg("c", 3, { embedding: [1, 1] }),
      msg("d", 4, { embedding: [0, 1] }),
    ]);
    const hits = await store.searchMessages({ embedding: [1, 0], limit: 3 });
    expect(hits.map((h) => [h.message.id, h.score])).toEqual([
      ["a", 1],
      ["b", 1],
      ["c", Math.round(Math.SQRT1_2 * 1e9) / 1e9], // rounded to 1e-9 by core
    ]);
  });
});
