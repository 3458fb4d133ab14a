import type { Conversation, ConversationInput, MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { allConversations, allMessages, allTraces, listAll } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

const WITH_DELETED = { includeDeleted: true } as const;

/** A conversation as written: what a read returns without the derived `lastActivityAt`. */
function record(c: Conversation): ConversationInput {
  const { lastActivityAt: _, ...rest } = c;
  return rest;
}
const DAY_WINDOW = { since: T0, until: T0 + 86_400_000, bucket: "day" } as const;

/** Conversation `sd` of `sd-user` (three messages, the assistant one traced and embedded) and a bystander. */
async function seed(store: MessageStoreApi) {
  const c = await store.storeConversation(conversation({ id: "sd", userId: "sd-user" }));
  const [m1, m2, m3] = await store.storeMessages([
    message(c, { id: "sd-m1", timestamp: T0 + 1, embedding: [1, 0] }),
    message(c, { id: "sd-m2", role: "assistant", timestamp: T0 + 2, embedding: [1, 1] }),
    message(c, { id: "sd-m3", timestamp: T0 + 3 }),
  ]);
  const t2 = await store.storeTurnTrace(trace(m2!, { id: "sd-t2", timestamp: T0 + 2 }));
  const other = await store.storeConversation(conversation({ id: "sd-other", userId: "sd-user" }));
  const o1 = await store.storeMessage(message(other, { id: "sd-o1", embedding: [1, 0] }));
  const ot = await store.storeTurnTrace(trace(o1, { id: "sd-ot" }));
  const conv = (await store.getConversation("sd"))!;
  return { c: conv, m1: m1!, m2: m2!, m3: m3!, t2, other, o1, ot };
}

/** What a soft delete of `sd` must not change: the other conversation of the same user. */
async function bystander(store: MessageStoreApi) {
  return {
    conversation: await store.getConversation("sd-other"),
    transcript: await allMessages(store, "sd-other"),
    trace: await store.getTurnTraceByMessageId("sd-o1"),
  };
}

/** Soft delete, restore, purge and the hard `deleteMessage`. */
export function softDeleteSuite(h: Harness): void {
  describe("soft delete", () => {
    it("softDeleteConversation hides the conversation, its messages and traces from every read", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      const s = await seed(h.store);
      const otherBefore = await bystander(h.store);
      const before = Date.now();
      expect(await h.store.softDeleteConversation("sd")).toBe(true);
      expect(await h.store.softDeleteConversation("sd")).toBe(false);
      expect(await h.store.softDeleteConversation("sd-missing")).toBe(false);

      expect(await h.store.getConversation("sd")).toBeNull();
      const deleted = (await h.store.getConversation("sd", WITH_DELETED))!;
      expect(deleted.deletedAt).toBeGreaterThanOrEqual(before);
      expect({ ...deleted, deletedAt: null }).toEqual(s.c); // lastActivityAt unchanged
      const at = deleted.deletedAt;
      expect((await allConversations(h.store, "sd-user")).map((c) => c.id)).toEqual(["sd-other"]);
      expect((await listAll(h.store)).map((c) => c.id)).toEqual(["sd-other"]);
      const listedWith = await h.store.listConversations(WITH_DELETED);
      expect(listedWith.items.map((c) => c.id)).toEqual(["sd", "sd-other"]);
      const byUserWith = await h.store.getConversationsByUserId("sd-user", WITH_DELETED);
      expect(byUserWith.items.map((c) => c.id).sort()).toEqual(["sd", "sd-other"]);

      expect(await allMessages(h.store, "sd")).toEqual([]);
      expect(await h.store.getImmediateContext("sd", 10)).toEqual([]);
      expect(await h.store.loadSessionMessages("sd")).toEqual([]);
      const transcript = await h.store.getMessagesByConversationId("sd", WITH_DELETED);
      expect(transcript.items).toEqual([s.m1, s.m2, s.m3].map((m) => ({ ...m, deletedAt: at })));
      for (const m of [s.m1, s.m2, s.m3]) expect(await h.store.getMessage(m.id)).toBeNull();
      expect(await h.store.getMessage("sd-m2", WITH_DELETED)).toEqual({ ...s.m2, deletedAt: at });

      expect(await h.store.getTurnTraceByMessageId("sd-m2")).toBeNull();
      const deletedTrace = { ...s.t2, deletedAt: at };
      expect(await h.store.getTurnTraceByMessageId("sd-m2", WITH_DELETED)).toEqual(deletedTrace);
      expect((await allTraces(h.store)).map((t) => t.id)).toEqual(["sd-ot"]);
      const tracesWith = await h.store.queryTurnTraces(WITH_DELETED);
      expect(tracesWith.items.map((t) => t.id).sort()).toEqual(["sd-ot", "sd-t2"]);
      const agent = await h.store.getTurnTracesByAgentId(s.t2.agentId, WITH_DELETED);
      expect(agent.items.map((t) => t.id).sort()).toEqual(["sd-ot", "sd-t2"]);
      expect((await h.store.summarizeUsage(DAY_WINDOW))[0]!.turns).toBe(1);
      const usageWith = await h.store.summarizeUsage({ ...DAY_WINDOW, includeDeleted: true });
      expect(usageWith[0]!.turns).toBe(2);
      if (h.store.capabilities.semanticSearch) {
        const hits = await h.store.searchMessages({ embedding: [1, 0] });
        expect(hits.map((x) => x.message.id)).toEqual(["sd-o1"]);
        const all = await h.store.searchMessages({ embedding: [1, 0], includeDeleted: true });
        expect(all.map((x) => x.message.id)).toEqual(["sd-m1", "sd-o1", "sd-m2"]);
      }
      expect(await bystander(h.store)).toEqual(otherBefore);
    });

    it("restoreConversation brings back exactly what was deleted with it, not what was deleted before", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      const s = await seed(h.store);
      expect(await h.store.softDeleteMessage("sd-m1")).toBe(true);
      const m1At = (await h.store.getMessage("sd-m1", WITH_DELETED))!.deletedAt!;
      expect(await h.store.softDeleteConversation("sd")).toBe(true);
      const convAt = (await h.store.getConversation("sd", WITH_DELETED))!.deletedAt!;
      expect(convAt).toBeGreaterThan(m1At); // same millisecond or not, the stamps differ
      expect((await h.store.getMessage("sd-m1", WITH_DELETED))!.deletedAt).toBe(m1At);
      expect(await h.store.restoreConversation("sd")).toBe(true);
      expect(await h.store.restoreConversation("sd")).toBe(false);
      expect(await h.store.restoreConversation("sd-missing")).toBe(false);
      expect(await h.store.getConversation("sd")).toEqual(s.c);
      expect(await allMessages(h.store, "sd")).toEqual([s.m2, s.m3]);
      expect(await h.store.getTurnTraceByMessageId("sd-m2")).toEqual(s.t2);
      expect((await h.store.getMessage("sd-m1", WITH_DELETED))!.deletedAt).toBe(m1At);
      expect(await h.store.restoreMessage("sd-m1")).toBe(true);
      expect(await allMessages(h.store, "sd")).toEqual([s.m1, s.m2, s.m3]);
      expect(await h.store.getImmediateContext("sd", 10)).toEqual([s.m1, s.m2, s.m3]);
    });

    it("softDeleteMessage hides one message and its trace; restoreMessage brings both back", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      const s = await seed(h.store);
      expect(await h.store.softDeleteMessage("sd-m2")).toBe(true);
      expect(await h.store.softDeleteMessage("sd-m2")).toBe(false);
      expect(await h.store.softDeleteMessage("sd-missing")).toBe(false);
      expect(await h.store.getMessage("sd-m2")).toBeNull();
      expect(await h.store.getTurnTraceByMessageId("sd-m2")).toBeNull();
      const at = (await h.store.getMessage("sd-m2", WITH_DELETED))!.deletedAt!;
      expect((await h.store.getTurnTraceByMessageId("sd-m2", WITH_DELETED))!.deletedAt).toBe(at);
      expect(await h.store.getImmediateContext("sd", 10)).toEqual([s.m1, s.m3]);
      expect(await allMessages(h.store, "sd", 1)).toEqual([s.m1, s.m3]);
      expect(await h.store.getConversation("sd")).toEqual(s.c);
      expect(await h.store.restoreMessage("sd-m2")).toBe(true);
      expect(await h.store.restoreMessage("sd-m2")).toBe(false);
      expect(await h.store.restoreMessage("sd-missing")).toBe(false);
      expect(await allMessages(h.store, "sd")).toEqual([s.m1, s.m2, s.m3]);
      expect(await h.store.getTurnTraceByMessageId("sd-m2")).toEqual(s.t2);
    });

    it("restoreMessage while its conversation is soft-deleted is an IntegrityError", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      await seed(h.store);
      await h.store.softDeleteConversation("sd");
      await expectRejection(() => h.store.restoreMessage("sd-m1"), "INTEGRITY");
      expect(await h.store.getMessage("sd-m1")).toBeNull();
    });

    it("writes into a soft-deleted conversation are IntegrityErrors until it is restored", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      const s = await seed(h.store);
      await h.store.softDeleteConversation("sd");
      const before = await h.store.getMessagesByConversationId("sd", WITH_DELETED);
      const writes: [string, () => Promise<unknown>][] = [
        ["new message", () => h.store.storeMessage(message(s.c, { id: "sd-new" }))],
        ["batch", () => h.store.storeMessages([message(s.c, { id: "sd-new" })])],
        [
          "live upsert of a deleted message",
          () => h.store.storeMessage({ ...s.m1, originalContent: "x" }),
        ],
        ["live trace", () => h.store.storeTurnTrace(trace(s.m3, { id: "sd-new-t" }))],
        [
          "live conversation upsert",
          () => h.store.storeConversation({ ...record(s.c), title: "back" }),
        ],
        [
          "session turns",
          () =>
            h.store.storeSessionMessages("sd", [{ role: "user", content: "x" }], {
              userId: "sd-user",
            }),
        ],
      ];
      for (const [what, write] of writes) await expectRejection(write, "INTEGRITY", what);
      await expectRejection(() => h.store.flagMessage("sd-m1"), "NOT_FOUND");
      expect(await h.store.getMessagesByConversationId("sd", WITH_DELETED)).toEqual(before);
      await h.store.restoreConversation("sd");
      await h.store.storeMessage(message(s.c, { id: "sd-new", timestamp: T0 + 9 }));
      expect((await h.store.flagMessage("sd-m1")).isFlagged).toBe(true);
    });

    it("records written with deletedAt (an import) round-trip; an upsert cannot change deletedAt", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      const at = T0 + 500;
      const c = await h.store.storeConversation(
        conversation({ id: "imp", userId: "imp-u", deletedAt: at }),
      );
      expect(c.deletedAt).toBe(at);
      const [gone, kept] = await h.store.storeMessages([
        message(c, { id: "imp-1", deletedAt: at, timestamp: T0 + 1 }),
        message(c, { id: "imp-2", deletedAt: at - 100, timestamp: T0 + 2 }),
      ]);
      expect(await h.store.getConversation("imp")).toBeNull();
      expect(await h.store.getConversation("imp", WITH_DELETED)).toEqual({
        ...c,
        lastActivityAt: T0 + 2,
      });
      expect(await h.store.getMessage("imp-1", WITH_DELETED)).toEqual(gone);
      await expectRejection(
        () => h.store.storeConversation({ ...record(c), deletedAt: null }),
        "INTEGRITY",
      );
      await expectRejection(() => h.store.storeMessage({ ...kept!, deletedAt: at }), "INTEGRITY");
      expect(await h.store.restoreConversation("imp")).toBe(true);
      expect((await allMessages(h.store, "imp")).map((m) => m.id)).toEqual(["imp-1"]);
      const live = await h.store.storeConversation(
        conversation({ id: "imp-live", userId: "imp-u" }),
      );
      await expectRejection(
        () => h.store.storeConversation({ ...record(live), deletedAt: at }),
        "INTEGRITY",
      );
      expect(await h.store.getConversation("imp-live")).toEqual(live);
    });

    it("purgeDeleted hard-deletes what was soft-deleted before `before`, with exact counts", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      await seed(h.store);
      await h.store.softDeleteConversation("sd"); // 1 conversation, 3 messages, 1 trace
      await h.store.softDeleteMessage("sd-o1"); // 1 message, 1 trace in a live conversation
      const zero = { conversations: 0, messages: 0, turnTraces: 0 };
      expect(await h.store.purgeDeleted({ before: T0 })).toEqual(zero);
      expect(await h.store.purgeDeleted({ before: Date.now() + 1, userId: "nobody" })).toEqual(
        zero,
      );
      expect(await h.store.purgeDeleted({ before: Date.now() + 1 })).toEqual({
        conversations: 1,
        messages: 4,
        turnTraces: 2,
      });
      expect(await h.store.purgeDeleted({ before: Date.now() + 1 })).toEqual(zero);
      expect(await h.store.getConversation("sd", WITH_DELETED)).toBeNull();
      expect(await h.store.getMessage("sd-m1", WITH_DELETED)).toBeNull();
      expect(await h.store.getMessage("sd-o1", WITH_DELETED)).toBeNull();
      expect(await h.store.getTurnTraceByMessageId("sd-o1", WITH_DELETED)).toBeNull();
      expect((await h.store.queryTurnTraces(WITH_DELETED)).items).toEqual([]);
      expect((await h.store.getConversation("sd-other"))?.id).toBe("sd-other");
      expect(await h.store.restoreConversation("sd")).toBe(false);
    });

    it("deleteUserData and deleteConversation remove soft-deleted records too", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      await seed(h.store);
      await h.store.softDeleteConversation("sd");
      await h.store.softDeleteMessage("sd-o1");
      expect(await h.store.deleteConversation("sd-other")).toBe(true);
      expect(await h.store.getMessage("sd-o1", WITH_DELETED)).toBeNull();
      expect(await h.store.deleteUserData("sd-user")).toEqual({
        conversations: 1,
        messages: 3,
        turnTraces: 1,
      });
      expect((await h.store.listConversations(WITH_DELETED)).items).toEqual([]);
    });

    it("soft-deleted records and their stamps survive reopening", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      if (!h.persistent) ctx.skip(`${h.name} is not persistent`);
      await seed(h.store);
      await h.store.softDeleteMessage("sd-m1");
      await h.store.softDeleteConversation("sd");
      const before = await h.store.getMessagesByConversationId("sd", WITH_DELETED);
      const store = await h.reopen();
      expect(await store.getMessagesByConversationId("sd", WITH_DELETED)).toEqual(before);
      expect(await store.restoreConversation("sd")).toBe(true);
      expect((await allMessages(store, "sd")).map((m) => m.id)).toEqual(["sd-m2", "sd-m3"]);
    });
  });

  describe("deleteMessage (hard delete of one message)", () => {
    it("removes the message and its trace for good; the conversation's activity stays", async () => {
      const s = await seed(h.store);
      expect(await h.store.deleteMessage("sd-m2")).toBe(true);
      expect(await h.store.deleteMessage("sd-m2")).toBe(false);
      expect(await h.store.deleteMessage("sd-missing")).toBe(false);
      expect(await h.store.getMessage("sd-m2", WITH_DELETED)).toBeNull();
      expect(await h.store.getTurnTraceByMessageId("sd-m2", WITH_DELETED)).toBeNull();
      expect((await allTraces(h.store)).map((t) => t.id)).toEqual(["sd-ot"]);
      expect(await allMessages(h.store, "sd")).toEqual([s.m1, s.m3]);
      expect(await h.store.getConversation("sd")).toEqual(s.c);
      // The id is free again, and a new trace may be attached to a new message with it.
      const again = await h.store.storeMessage(message(s.c, { id: "sd-m2", timestamp: T0 + 9 }));
      expect(await allMessages(h.store, "sd")).toEqual([s.m1, s.m3, again]);
      expect(await h.store.storeTurnTrace(trace(again, { id: "sd-t2" }))).toMatchObject({
        id: "sd-t2",
      });
    });

    it("also removes a soft-deleted message", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      await seed(h.store);
      await h.store.softDeleteMessage("sd-m2");
      expect(await h.store.deleteMessage("sd-m2")).toBe(true);
      expect(await h.store.getMessage("sd-m2", WITH_DELETED)).toBeNull();
      expect(await h.store.getTurnTraceByMessageId("sd-m2", WITH_DELETED)).toBeNull();
    });

    it("rejects an invalid id with a ValidationError", async () => {
      await expectRejection(() => h.store.deleteMessage({ $ne: null } as never), "VALIDATION");
      await expectRejection(() => h.store.deleteMessage(""), "VALIDATION");
    });
  });
}
