import { embedPendingMessages, type MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { collect } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, message } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** A deterministic embedder: [length, number of vowels, 1]. */
async function embed(texts: string[]): Promise<number[][]> {
  return texts.map((t) => [t.length, (t.match(/[aeiou]/g) ?? []).length, 1]);
}

/** One conversation per user with messages of every kind; `eq-*` ids sort in insertion order. */
async function seed(store: MessageStoreApi) {
  const a = await store.storeConversation(conversation({ id: "eq-a", userId: "eq-u1" }));
  const b = await store.storeConversation(conversation({ id: "eq-b", userId: "eq-u2" }));
  await store.storeMessages([
    message(a, { id: "eq-01", originalContent: "hello there" }),
    message(a, { id: "eq-02", role: "assistant", originalContent: "general kenobi" }),
    message(a, {
      id: "eq-03",
      role: "tool",
      originalContent: "{}",
      toolCallId: "k",
      toolName: "t",
    }),
    message(a, { id: "eq-04", role: "system", originalContent: "be nice" }),
    message(a, { id: "eq-05", isFlagged: true, originalContent: "flagged" }),
    message(a, { id: "eq-06", embedding: [9, 9, 9], originalContent: "done" }),
  ]);
  await store.storeMessage(message(b, { id: "eq-07", originalContent: "other user" }));
}

const ids = (items: { id: string }[]) => items.map((m) => m.id);

/** The embedding queue: pending messages, conditional embedding updates, the worker. */
export function embeddingQueueSuite(h: Harness): void {
  describe("embedding queue", () => {
    it("lists live user and assistant messages without an embedding, by id, in pages", async (ctx) => {
      requireCapabilities(h, ctx, "embeddingQueue");
      await seed(h.store);
      expect(ids((await h.store.listPendingEmbeddings()).items)).toEqual([
        "eq-01",
        "eq-02",
        "eq-07",
      ]);
      expect(ids(await collect((o) => h.store.listPendingEmbeddings(o), 1))).toEqual([
        "eq-01",
        "eq-02",
        "eq-07",
      ]);
      const all = await h.store.listPendingEmbeddings({
        roles: ["user", "assistant", "tool", "system"],
        includeFlagged: true,
      });
      expect(ids(all.items)).toEqual(["eq-01", "eq-02", "eq-03", "eq-04", "eq-05", "eq-07"]);
      expect(ids((await h.store.listPendingEmbeddings({ roles: ["tool"] })).items)).toEqual([
        "eq-03",
      ]);
      expect(ids((await h.store.listPendingEmbeddings({ userId: "eq-u2" })).items)).toEqual([
        "eq-07",
      ]);
      expect(ids((await h.store.forUser("eq-u1").listPendingEmbeddings()).items)).toEqual([
        "eq-01",
        "eq-02",
      ]);
      expect((await h.store.listPendingEmbeddings()).items[0]).toEqual(
        await h.store.getMessage("eq-01"),
      );
      await expectRejection(() => h.store.listPendingEmbeddings({ roles: [] }), "VALIDATION");
    });

    it("setEmbeddings stores a vector only while the message still has the text it was computed from", async (ctx) => {
      requireCapabilities(h, ctx, "embeddingQueue");
      await seed(h.store);
      const set = await h.store.setEmbeddings([
        { id: "eq-01", embedding: [1, 2, 3], originalContent: "hello there" },
        { id: "eq-02", embedding: [4, 5, 6], originalContent: "an older text" },
        { id: "eq-missing", embedding: [1], originalContent: "x" },
      ]);
      expect(set).toBe(1);
      expect((await h.store.getMessage("eq-01"))!.embedding).toEqual([1, 2, 3]);
      expect((await h.store.getMessage("eq-02"))!.embedding).toBeNull();
      expect(ids((await h.store.listPendingEmbeddings()).items)).toEqual(["eq-02", "eq-07"]);
      expect(await h.store.setEmbeddings([])).toBe(0);
      await expectRejection(
        () =>
          h.store.setEmbeddings([
            { id: "eq-01", embedding: [1], originalContent: "hello there" },
            { id: "eq-01", embedding: [2], originalContent: "hello there" },
          ]),
        "VALIDATION",
      );
      await expectRejection(
        () =>
          h.store.setEmbeddings([{ id: "eq-01", embedding: [Number.NaN], originalContent: "x" }]),
        "VALIDATION",
      );
      // Through a view, another user's message is skipped.
      expect(
        await h.store
          .forUser("eq-u1")
          .setEmbeddings([{ id: "eq-07", embedding: [1], originalContent: "other user" }]),
      ).toBe(0);
      expect((await h.store.getMessage("eq-07"))!.embedding).toBeNull();
    });

    it("an upsert that changes the text clears a passed-back embedding; one without an embedding clears it", async (ctx) => {
      requireCapabilities(h, ctx, "embeddingQueue");
      await seed(h.store);
      const done = (await h.store.getMessage("eq-06"))!;
      const same = await h.store.storeMessage({ ...done, metadata: { touched: true } });
      expect(same.embedding).toEqual([9, 9, 9]);
      const changed = await h.store.storeMessage({ ...done, originalContent: "done, edited" });
      expect(changed.embedding).toBeNull();
      expect(await h.store.getMessage("eq-06")).toEqual(changed);
      expect(ids((await h.store.listPendingEmbeddings()).items)).toContain("eq-06");
      await h.store.setEmbeddings([
        { id: "eq-06", embedding: [7], originalContent: "done, edited" },
      ]);
      const fresh = await h.store.storeMessage({
        ...changed,
        originalContent: "again",
        embedding: [8],
      });
      expect(fresh.embedding).toEqual([8]); // a new vector with the new text is kept
      const { embedding: _, ...withoutEmbedding } = fresh;
      expect((await h.store.storeMessage(withoutEmbedding)).embedding).toBeNull();
    });

    it("soft-deleted messages are not pending and are not embedded", async (ctx) => {
      requireCapabilities(h, ctx, "embeddingQueue", "softDelete");
      await seed(h.store);
      await h.store.softDeleteMessage("eq-01");
      expect(ids((await h.store.listPendingEmbeddings()).items)).toEqual(["eq-02", "eq-07"]);
      expect(
        await h.store.setEmbeddings([
          { id: "eq-01", embedding: [1], originalContent: "hello there" },
        ]),
      ).toBe(0);
      await h.store.restoreMessage("eq-01");
      expect(ids((await h.store.listPendingEmbeddings()).items)).toEqual([
        "eq-01",
        "eq-02",
        "eq-07",
      ]);
    });

    it("embedPendingMessages embeds everything pending in batches, idempotently and resumably", async (ctx) => {
      requireCapabilities(h, ctx, "embeddingQueue");
      await seed(h.store);
      const controller = new AbortController();
      await expect(
        embedPendingMessages(h.store, {
          embed,
          batchSize: 1,
          signal: controller.signal,
          onProgress: () => controller.abort(new Error("stopped")),
        }),
      ).rejects.toThrow("stopped");
      expect(ids((await h.store.listPendingEmbeddings()).items)).toEqual(["eq-02", "eq-07"]);
      const progress: number[] = [];
      const result = await embedPendingMessages(h.store, {
        embed,
        batchSize: 1,
        onProgress: (p) => progress.push(p.embedded),
      });
      expect(result).toEqual({ embedded: 2, skipped: 0, batches: 2 });
      expect(progress).toEqual([1, 2]);
      expect((await h.store.getMessage("eq-02"))!.embedding).toEqual([14, 6, 1]);
      expect(await embedPendingMessages(h.store, { embed })).toEqual({
        embedded: 0,
        skipped: 0,
        batches: 0,
      });
      if (h.store.capabilities.semanticSearch) {
        const hits = await h.store.searchMessages({
          embedding: [10, 4, 1],
          userId: "eq-u1",
          limit: 1,
        });
        expect(hits[0]!.message.id).toBe("eq-01");
      }
    });

    it("without capabilities.embeddingQueue, the queue's methods are UnsupportedOperationErrors", async (ctx) => {
      if (h.store.capabilities.embeddingQueue === true)
        ctx.skip(`${h.name} has the embedding queue`);
      await expectRejection(() => h.store.listPendingEmbeddings(), "UNSUPPORTED");
      await expectRejection(() => h.store.setEmbeddings([]), "UNSUPPORTED");
      await expectRejection(() => embedPendingMessages(h.store, { embed }), "UNSUPPORTED");
    });
  });
}
