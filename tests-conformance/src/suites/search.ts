import type { MessageStoreApi, SearchHit } from "@message-store/core";
import { describe, expect, it, type TestContext } from "vitest";
import { expectRejection } from "../expect-error.js";
import { conversation, message, T0 } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Messages with known cosine similarity to [1, 0, 0]. */
async function seed(store: MessageStoreApi) {
  const c1 = conversation({ id: "s-conv", userId: "u1" });
  const c2 = conversation({ id: "s-conv2", userId: "u2" });
  const c3 = conversation({ id: "s-conv3", userId: "u2" });
  await store.storeConversation(c1);
  await store.storeConversation(c2);
  await store.storeConversation(c3);
  const rows: [typeof c1, string, number[] | null, Record<string, unknown>?][] = [
    [c1, "s-b", [1, 0, 0]],
    [c1, "s-a", [2, 0, 0]],
    [c1, "s-c", [1, 1, 0]],
    [c1, "s-d", [0, 1, 0]],
    [c1, "s-f", [0, 0, 0]],
    [c1, "s-e", [-1, 0, 0]],
    [c1, "s-g", [1, 0]],
    [c1, "s-h", [1, 0, 0], { isFlagged: true }],
    [c1, "s-i", null],
    [c2, "s-j", [1, 0.5, 0]],
    [c3, "s-k", [0.5, 0, 0.5]],
  ];
  for (const [c, id, embedding, extra] of rows) {
    await store.storeMessage(message(c, { id, embedding, timestamp: T0, ...extra }));
  }
}

/** cos 45° as searchMessages reports it: rounded to 1e-9, i.e. 0.707106781. */
const COS_45 = Math.round(Math.SQRT1_2 * 1e9) / 1e9;

const RANKING: [string, number][] = [
  ["s-a", 1],
  ["s-b", 1],
  ["s-j", 0.894427191],
  ["s-c", COS_45],
  ["s-k", COS_45],
  ["s-d", 0],
  ["s-f", 0],
  ["s-e", -1],
];

const summary = (hits: SearchHit[]) => hits.map((x) => [x.message.id, x.score]);

/** searchMessages where `capabilities.semanticSearch`; UnsupportedOperationError elsewhere. */
export function searchSuite(h: Harness): void {
  describe("searchMessages (semantic search)", () => {
    const requireSearch = (ctx: TestContext) => {
      if (!h.store.capabilities.semanticSearch) {
        ctx.skip(`${h.name} does not declare capabilities.semanticSearch`);
      }
    };

    it("capabilities.semanticSearch is a boolean", () => {
      expect(typeof h.store.capabilities.semanticSearch).toBe("boolean");
    });

    it("rejects with UnsupportedOperationError (code UNSUPPORTED) when the capability is absent", async (ctx) => {
      if (h.store.capabilities.semanticSearch) ctx.skip(`${h.name} supports semantic search`);
      await seed(h.store);
      await expectRejection(() => h.store.searchMessages({ embedding: [1, 0, 0] }), "UNSUPPORTED");
      await expectRejection(
        () => h.store.forUser("u1").searchMessages({ embedding: [1, 0, 0] }),
        "UNSUPPORTED",
      );
    });

    it("ranks by cosine similarity (ties by id), rounds scores to 1e-9, skips flagged and other lengths", async (ctx) => {
      requireSearch(ctx);
      await seed(h.store);
      expect(summary(await h.store.searchMessages({ embedding: [1, 0, 0] }))).toEqual(RANKING);
      expect(summary(await h.store.searchMessages({ embedding: [3, 0, 0], limit: 1000 }))).toEqual(
        RANKING,
      );
    });

    it("honours limit, and returns at most 10 by default", async (ctx) => {
      requireSearch(ctx);
      await seed(h.store);
      expect(summary(await h.store.searchMessages({ embedding: [1, 0, 0], limit: 3 }))).toEqual(
        RANKING.slice(0, 3),
      );
      const c = conversation({ id: "many" });
      await h.store.storeConversation(c);
      await h.store.storeMessages(
        Array.from({ length: 12 }, (_, i) =>
          message(c, { id: `many-${i}`, embedding: [0, 0, 0, 1] }),
        ),
      );
      const hits = await h.store.searchMessages({ embedding: [0, 0, 0, 2] });
      expect(hits.map((x) => x.message.id)).toEqual(
        Array.from({ length: 12 }, (_, i) => `many-${i}`)
          .sort()
          .slice(0, 10),
      );
    });

    it("filters by the message's userId and by conversationId", async (ctx) => {
      requireSearch(ctx);
      await seed(h.store);
      const q = { embedding: [1, 0, 0] };
      const only = (ids: string[]) => RANKING.filter(([id]) => ids.includes(id));
      expect(summary(await h.store.searchMessages({ ...q, userId: "u2" }))).toEqual(
        only(["s-j", "s-k"]),
      );
      expect(summary(await h.store.searchMessages({ ...q, userId: "u1" }))).toEqual(
        only(["s-a", "s-b", "s-c", "s-d", "s-f", "s-e"]),
      );
      expect(summary(await h.store.searchMessages({ ...q, conversationId: "s-conv2" }))).toEqual(
        only(["s-j"]),
      );
      expect(
        summary(await h.store.searchMessages({ ...q, conversationId: "s-conv3", userId: "u2" })),
      ).toEqual(only(["s-k"]));
      expect(
        await h.store.searchMessages({ ...q, conversationId: "s-conv", userId: "u2" }),
      ).toEqual([]);
      expect(await h.store.searchMessages({ ...q, userId: "nobody" })).toEqual([]);
    });

    it("hits carry the full stored message", async (ctx) => {
      requireSearch(ctx);
      await seed(h.store);
      for (const hit of await h.store.searchMessages({ embedding: [1, 0, 0] })) {
        expect(await h.store.getMessage(hit.message.id)).toEqual(hit.message);
      }
    });

    it("follows flags, embedding upserts and deletes", async (ctx) => {
      requireSearch(ctx);
      await seed(h.store);
      await h.store.flagMessage("s-h", false);
      await h.store.flagMessage("s-a");
      const e = (await h.store.getMessage("s-e"))!;
      await h.store.storeMessage({ ...e, embedding: [10, 0, 0] });
      const ids = (await h.store.searchMessages({ embedding: [1, 0, 0], limit: 3 })).map(
        (x) => x.message.id,
      );
      expect(ids).toEqual(["s-b", "s-e", "s-h"]);
      await h.store.deleteConversation("s-conv");
      expect(summary(await h.store.searchMessages({ embedding: [1, 0, 0] }))).toEqual([
        ["s-j", 0.894427191],
        ["s-k", COS_45],
      ]);
    });

    it("a scoped view only finds the user's own conversations", async (ctx) => {
      requireSearch(ctx);
      await seed(h.store);
      const hits = await h.store.forUser("u2").searchMessages({ embedding: [1, 0, 0] });
      expect(summary(hits)).toEqual([
        ["s-j", 0.894427191],
        ["s-k", COS_45],
      ]);
    });
  });
}
