import { describe, expect, it } from "vitest";
import { conversation, message, T0 } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** getImmediateContext: the n most recent non-flagged messages, oldest first. */
export function contextSuite(h: Harness): void {
  describe("getImmediateContext", () => {
    async function seed(): Promise<string> {
      const c = conversation();
      await h.store.storeConversation(c);
      // Stored out of timestamp order, with a same-timestamp tie (m3 before m4).
      await h.store.storeMessage(message(c, { id: "m5", timestamp: T0 + 50 }));
      await h.store.storeMessages([
        message(c, { id: "m1", timestamp: T0 + 10 }),
        message(c, { id: "m3", timestamp: T0 + 30 }),
        message(c, { id: "m4", timestamp: T0 + 30 }),
        message(c, { id: "m2", timestamp: T0 + 20 }),
      ]);
      await h.store.storeMessage(message(c, { id: "m6", timestamp: T0 + 60 }));
      return c.id;
    }
    const ctx = async (id: string, n: number) =>
      (await h.store.getImmediateContext(id, n)).map((m) => m.id);

    it("returns the n most recent messages, oldest first", async () => {
      const id = await seed();
      expect(await ctx(id, 3)).toEqual(["m4", "m5", "m6"]);
      expect(await ctx(id, 4)).toEqual(["m3", "m4", "m5", "m6"]);
      expect(await ctx(id, 1)).toEqual(["m6"]);
    });

    it("returns every message when n exceeds the count", async () => {
      const id = await seed();
      expect(await ctx(id, 100)).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
      expect(await ctx(id, 6)).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
    });

    it("n = 0 gives []", async () => {
      const id = await seed();
      expect(await h.store.getImmediateContext(id, 0)).toEqual([]);
    });

    it("skips flagged messages and counts only non-flagged ones", async () => {
      const id = await seed();
      await h.store.flagMessage("m5");
      await h.store.flagMessage("m3");
      expect(await ctx(id, 3)).toEqual(["m2", "m4", "m6"]);
      expect(await ctx(id, 100)).toEqual(["m1", "m2", "m4", "m6"]);
    });

    it("unflagging brings a message back", async () => {
      const id = await seed();
      await h.store.flagMessage("m6");
      expect(await ctx(id, 2)).toEqual(["m4", "m5"]);
      await h.store.flagMessage("m6", false);
      expect(await ctx(id, 2)).toEqual(["m5", "m6"]);
    });

    it("a conversation whose messages are all flagged gives []", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const m = await h.store.storeMessage(message(c, { isFlagged: true }));
      expect(await h.store.getImmediateContext(c.id, 5)).toEqual([]);
      expect((await h.store.getMessagesByConversationId(c.id)).items).toEqual([m]);
    });

    it("returns full records equal to getMessage", async () => {
      const id = await seed();
      for (const m of await h.store.getImmediateContext(id, 10)) {
        expect(await h.store.getMessage(m.id)).toEqual(m);
      }
    });

    it("only returns messages of the given conversation", async () => {
      const id = await seed();
      const other = conversation();
      await h.store.storeConversation(other);
      await h.store.storeMessage(message(other, { id: "other-late", timestamp: T0 + 1_000 }));
      expect(await ctx(id, 2)).toEqual(["m5", "m6"]);
      expect(await ctx(other.id, 5)).toEqual(["other-late"]);
    });
  });
}
