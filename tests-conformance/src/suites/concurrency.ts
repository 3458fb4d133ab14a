import { isMessageStoreError } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { allConversations, allMessages, allTraces } from "../dump.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

const N = 50;

/** Parallel callers on one store: upserts of one id, stores into one conversation, batches. */
export function concurrencySuite(h: Harness): void {
  describe("concurrency", () => {
    it(`${N} parallel upserts of one conversation id leave one valid version`, async () => {
      const versions = Array.from({ length: N }, (_, i) =>
        conversation({
          id: "contended",
          userId: "u",
          title: `v${i}`,
          tags: [`t${i}`],
          metadata: { v: i },
        }),
      );
      const results = await Promise.all(versions.map((v) => h.store.storeConversation(v)));
      expect(results.map((r) => r.title)).toEqual(versions.map((v) => v.title));
      const listed = await allConversations(h.store, "u");
      expect(listed).toHaveLength(1);
      const final = listed[0]!;
      const i = Number(final.title!.slice(1));
      expect(final).toEqual({
        ...versions[i],
        tenantId: null,
        agentId: null,
        description: null,
        status: "active",
        deletedAt: null,
        lastActivityAt: T0,
      });
      expect(await h.store.getConversation("contended")).toEqual(final);
    });

    it(`${N} parallel upserts of one message id leave one valid version`, async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const versions = Array.from({ length: N }, (_, i) =>
        message(c, {
          id: "contended",
          originalContent: `v${i}`,
          metadata: { v: i },
          timestamp: T0 + 5,
        }),
      );
      await Promise.all(versions.map((v) => h.store.storeMessage(v)));
      const transcript = await allMessages(h.store, c.id);
      expect(transcript).toHaveLength(1);
      const i = transcript[0]!.metadata.v as number;
      expect(transcript[0]).toEqual(
        expect.objectContaining({ ...versions[i], originalContent: `v${i}` }),
      );
      expect(await h.store.getMessage("contended")).toEqual(transcript[0]);
      expect((await h.store.getConversation(c.id))?.lastActivityAt).toBe(T0 + 5);
    });

    it(`${N} parallel stores into one conversation: all present, one consistent total order`, async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const ms = Array.from({ length: N }, (_, i) =>
        message(c, { id: `p-${String(i).padStart(2, "0")}`, timestamp: T0 + (i % 3) }),
      );
      const stored = await Promise.all(ms.map((m) => h.store.storeMessage(m)));
      expect(stored.map((m) => m.id)).toEqual(ms.map((m) => m.id));
      const first = (await allMessages(h.store, c.id)).map((m) => m.id);
      const second = (await allMessages(h.store, c.id)).map((m) => m.id);
      expect(new Set(first)).toEqual(new Set(ms.map((m) => m.id)));
      expect(second).toEqual(first);
      // Unique positions: a keyset walk one row at a time sees every message exactly once.
      expect((await allMessages(h.store, c.id, 1)).map((m) => m.id)).toEqual(first);
      expect((await allMessages(h.store, c.id, 7)).map((m) => m.id)).toEqual(first);
      const stamps = first.map((id) => ms.find((m) => m.id === id)!.timestamp);
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
      // A message stored afterwards with an equal timestamp goes after all of them.
      await h.store.storeMessage(message(c, { id: "p-late", timestamp: T0 }));
      const after = (await allMessages(h.store, c.id)).map((m) => m.id);
      expect(after.indexOf("p-late")).toBe(ms.filter((m) => m.timestamp === T0).length);
    });

    it("parallel batches into one conversation: all present, each batch keeps its array order", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const batches = Array.from({ length: 10 }, (_, b) =>
        Array.from({ length: 10 }, (_, i) => message(c, { id: `b${b}-${9 - i}`, timestamp: T0 })),
      );
      await Promise.all(batches.map((batch) => h.store.storeMessages(batch)));
      const order = (await allMessages(h.store, c.id)).map((m) => m.id);
      expect(order).toHaveLength(100);
      expect((await allMessages(h.store, c.id, 3)).map((m) => m.id)).toEqual(order);
      for (const batch of batches) {
        const ids = batch.map((m) => m.id);
        expect(order.filter((id) => ids.includes(id))).toEqual(ids);
      }
    });

    it("parallel batches into different conversations all land", async () => {
      const convs = Array.from({ length: 10 }, () => conversation({ userId: "batch-user" }));
      await Promise.all(convs.map((c) => h.store.storeConversation(c)));
      await Promise.all(
        convs.map((c) =>
          h.store.storeMessages(
            Array.from({ length: 20 }, (_, i) => message(c, { timestamp: T0 + i })),
          ),
        ),
      );
      for (const c of convs) expect(await allMessages(h.store, c.id)).toHaveLength(20);
      expect(await allConversations(h.store, "batch-user")).toHaveLength(10);
    });

    it("parallel traces with different ids for one message: exactly one wins, the rest are IntegrityErrors", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const m = await h.store.storeMessage(message(c, { role: "assistant" }));
      const attempts = Array.from({ length: 20 }, (_, i) => trace(m, { id: `race-${i}` }));
      const settled = await Promise.allSettled(attempts.map((t) => h.store.storeTurnTrace(t)));
      const won = settled.filter((s) => s.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const s of settled) {
        if (s.status === "rejected") {
          expect(isMessageStoreError(s.reason) && s.reason.code).toBe("INTEGRITY");
        }
      }
      const winner = (won[0] as PromiseFulfilledResult<unknown>).value;
      expect(await h.store.getTurnTraceByMessageId(m.id)).toEqual(winner);
      expect(await allTraces(h.store)).toEqual([winner]);
    });

    it("parallel deletes of one conversation: exactly one resolves true", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      await h.store.storeMessages(Array.from({ length: 10 }, () => message(c)));
      const results = await Promise.all(
        Array.from({ length: 10 }, () => h.store.deleteConversation(c.id)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await allMessages(h.store, c.id)).toEqual([]);
    });

    it("reads during a delete see all of the conversation or none of it", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      await h.store.storeMessages(
        Array.from({ length: 200 }, (_, i) => message(c, { timestamp: T0 + i })),
      );
      const reads = Array.from({ length: 20 }, () => h.store.getMessagesByConversationId(c.id));
      const deleted = h.store.deleteConversation(c.id);
      const more = Array.from({ length: 20 }, () => h.store.getMessagesByConversationId(c.id));
      const pages = await Promise.all([...reads, ...more]);
      expect(await deleted).toBe(true);
      for (const p of pages) expect([0, 200]).toContain(p.items.length);
    });
  });
}
