import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { collect, listAll } from "../dump.js";
import { expectRejection, expectThrow } from "../expect-error.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

const EMPTY = { items: [], nextCursor: null };
const WINDOW = { since: T0, until: T0 + 86_400_000, bucket: "day" } as const;

/**
 * Tenants t1 and t2. u1 has a conversation in each (the same user id in two tenants), u2 one in
 * t1. Every conversation has a user message and a traced assistant message; t2's message is the
 * closest to the search probe [1, 0].
 */
async function seed(store: MessageStoreApi) {
  const rows = [
    ["t1-u1", "u1", "t1", [0.6, 0.8]],
    ["t1-u2", "u2", "t1", [0.5, 0.5]],
    ["t2-u1", "u1", "t2", [1, 0]],
  ] as const;
  for (const [id, userId, tenantId, embedding] of rows) {
    const c = await store.storeConversation(conversation({ id, userId, tenantId }));
    const [, a] = await store.storeMessages([
      message(c, { id: `${id}-m1`, timestamp: T0 + 1 }),
      message(c, {
        id: `${id}-m2`,
        role: "assistant",
        timestamp: T0 + 2,
        embedding: [...embedding],
      }),
    ]);
    await store.storeTurnTrace(trace(a!, { id: `${id}-t`, agentId: "agent", timestamp: T0 + 2 }));
  }
}

const ids = (items: { id: string }[]) => items.map((x) => x.id);

/** Tenants: inheritance, tenantId filters, and `forTenant` views (composed with `forUser`). */
export function tenantsSuite(h: Harness): void {
  describe("tenants", () => {
    it("messages and traces inherit their conversation's tenant; another tenant is an IntegrityError", async (ctx) => {
      requireCapabilities(h, ctx, "tenants");
      const c = await h.store.storeConversation(
        conversation({ id: "tc", userId: "u", tenantId: "t1" }),
      );
      expect(c.tenantId).toBe("t1");
      const m = await h.store.storeMessage(message(c, { id: "tm" }));
      expect(m.tenantId).toBe("t1");
      expect(await h.store.getMessage("tm")).toEqual(m);
      const same = await h.store.storeMessage(message(c, { id: "tm2", tenantId: "t1" }));
      expect(same.tenantId).toBe("t1");
      const t = await h.store.storeTurnTrace(trace(m, { id: "tt" }));
      expect(t).toMatchObject({ tenantId: "t1", userId: "u" });
      expect(await h.store.getTurnTraceByMessageId("tm")).toEqual(t);
      await expectRejection(
        () => h.store.storeMessage(message(c, { id: "tx", tenantId: "t2" })),
        "INTEGRITY",
      );
      await expectRejection(() => h.store.storeTurnTrace({ ...t, tenantId: "t2" }), "INTEGRITY");
      const { lastActivityAt: _, ...record } = c;
      await expectRejection(
        () => h.store.storeConversation({ ...record, tenantId: "t2" }),
        "INTEGRITY",
      );
      await expectRejection(
        () => h.store.storeConversation({ ...record, tenantId: null }),
        "INTEGRITY",
      );
      const plain = await h.store.storeConversation(conversation({ id: "plain", userId: "u" }));
      expect(plain.tenantId).toBeNull();
      await expectRejection(
        () => h.store.storeConversation(conversation({ id: "plain", userId: "u", tenantId: "t1" })),
        "INTEGRITY",
      );
      expect(await h.store.getMessage("tx")).toBeNull();
    });

    it("tenantId filters every list, analytics query, search and erasure in the backend", async (ctx) => {
      requireCapabilities(h, ctx, "tenants");
      await seed(h.store);
      expect(ids(await listAll(h.store))).toEqual(["t1-u1", "t1-u2", "t2-u1"]);
      expect(ids((await h.store.listConversations({ tenantId: "t1" })).items)).toEqual([
        "t1-u1",
        "t1-u2",
      ]);
      expect(
        ids(await collect((o) => h.store.listConversations({ ...o, tenantId: "t1" }), 1)),
      ).toEqual(["t1-u1", "t1-u2"]);
      expect(
        ids((await h.store.listConversations({ tenantId: "t2", userId: "u2" })).items),
      ).toEqual([]);
      expect(ids((await h.store.getConversationsByUserId("u1", { tenantId: "t2" })).items)).toEqual(
        ["t2-u1"],
      );
      expect(await h.store.getConversationsByUserId("u1", { tenantId: "t3" })).toEqual(EMPTY);
      expect(ids((await h.store.queryTurnTraces({ tenantId: "t1" })).items).sort()).toEqual([
        "t1-u1-t",
        "t1-u2-t",
      ]);
      expect(ids((await h.store.queryTurnTraces({ tenantId: "t2", userId: "u1" })).items)).toEqual([
        "t2-u1-t",
      ]);
      expect((await h.store.summarizeUsage({ ...WINDOW, tenantId: "t1" }))[0]!.turns).toBe(2);
      expect(await h.store.summarizeUsage({ ...WINDOW, tenantId: "t3" })).toEqual([]);
      if (h.store.capabilities.semanticSearch) {
        const hits = await h.store.searchMessages({ embedding: [1, 0], tenantId: "t1", limit: 1 });
        expect(hits.map((x) => x.message.id)).toEqual(["t1-u2-m2"]);
      }
      expect(await h.store.deleteUserData("u1", { tenantId: "t2" })).toEqual({
        conversations: 1,
        messages: 2,
        turnTraces: 1,
      });
      expect(ids(await listAll(h.store))).toEqual(["t1-u1", "t1-u2"]);
    });

    it("through forTenant, another tenant's records read exactly like missing ones (guessed ids)", async (ctx) => {
      requireCapabilities(h, ctx, "tenants");
      await seed(h.store);
      const t1 = h.store.forTenant("t1");
      for (const id of ["t2-u1", "missing"]) {
        expect(await t1.getConversation(id)).toBeNull();
        expect(await t1.getConversation(id, { includeDeleted: true })).toBeNull();
        expect(await t1.getMessagesByConversationId(id)).toEqual(EMPTY);
        expect(await t1.getImmediateContext(id, 5)).toEqual([]);
        expect(await t1.loadSessionMessages(id)).toEqual([]);
        expect(await t1.queryTurnTraces({ conversationId: id })).toEqual(EMPTY);
        expect(await t1.deleteConversation(id)).toBe(false);
      }
      for (const id of ["t2-u1-m2", "missing-m"]) {
        expect(await t1.getMessage(id)).toBeNull();
        expect(await t1.getTurnTraceByMessageId(id)).toBeNull();
        expect(await t1.deleteMessage(id)).toBe(false);
      }
      const foreign = await expectRejection(() => t1.flagMessage("t2-u1-m1"), "NOT_FOUND");
      const missing = await expectRejection(() => t1.flagMessage("missing-m"), "NOT_FOUND");
      expect(foreign.message.replace("t2-u1-m1", "<id>")).toBe(
        missing.message.replace("missing-m", "<id>"),
      );
      await expectRejection(
        () => t1.storeMessage(message({ id: "t2-u1", userId: "u1" }, { id: "planted" })),
        "NOT_FOUND",
      );
      await expectRejection(
        () => t1.storeConversation(conversation({ id: "t2-u1", userId: "u1" })),
        "NOT_FOUND",
      );
      expect(await h.store.getMessage("planted")).toBeNull();
      expect((await h.store.getConversation("t2-u1"))?.tenantId).toBe("t2");
    });

    it("through forTenant, lists (cursors included), analytics, search and erasure only see the tenant", async (ctx) => {
      requireCapabilities(h, ctx, "tenants");
      await seed(h.store);
      const t1 = h.store.forTenant("t1");
      expect(ids(await listAll(t1))).toEqual(["t1-u1", "t1-u2"]);
      expect(ids(await listAll(t1, undefined, 1))).toEqual(["t1-u1", "t1-u2"]);
      expect(await t1.listConversations({ tenantId: "t2" })).toEqual(EMPTY);
      // A cursor taken from the whole store's list does not open another tenant's rows.
      const first = await h.store.listConversations({ limit: 1 });
      const rest = await t1.listConversations({ cursor: first.nextCursor });
      expect(ids(rest.items)).toEqual(["t1-u2"]);
      const two = await h.store.listConversations({ limit: 2 });
      expect(await t1.listConversations({ cursor: two.nextCursor })).toEqual(EMPTY);
      expect(ids((await t1.getConversationsByUserId("u1")).items)).toEqual(["t1-u1"]);
      expect(ids(await collect((o) => t1.queryTurnTraces(o), 1)).sort()).toEqual([
        "t1-u1-t",
        "t1-u2-t",
      ]);
      expect(ids((await t1.getTurnTracesByAgentId("agent")).items).sort()).toEqual([
        "t1-u1-t",
        "t1-u2-t",
      ]);
      expect((await t1.summarizeUsage(WINDOW))[0]!.turns).toBe(2);
      if (h.store.capabilities.semanticSearch) {
        const hits = await t1.searchMessages({ embedding: [1, 0], limit: 1 });
        expect(hits.map((x) => x.message.id)).toEqual(["t1-u2-m2"]);
        expect(await t1.searchMessages({ embedding: [1, 0], tenantId: "t2" })).toEqual([]);
      }
      expect(await t1.deleteUserData("u1")).toEqual({
        conversations: 1,
        messages: 2,
        turnTraces: 1,
      });
      expect(ids(await listAll(h.store))).toEqual(["t1-u2", "t2-u1"]);
    });

    it("a conversation stored through forTenant gets the tenant; another tenant is a ValidationError", async (ctx) => {
      requireCapabilities(h, ctx, "tenants");
      const t1 = h.store.forTenant("t1");
      const c = await t1.storeConversation(conversation({ id: "via-view", userId: "u" }));
      expect(c.tenantId).toBe("t1");
      const m = await t1.storeMessage(message(c, { id: "via-view-m" }));
      expect(m.tenantId).toBe("t1");
      await expectRejection(
        () => t1.storeConversation(conversation({ id: "other", userId: "u", tenantId: "t2" })),
        "VALIDATION",
      );
      const s = await t1.storeSessionMessages("via-session", [{ role: "user", content: "hi" }], {
        userId: "u",
      });
      expect(s[0]!.tenantId).toBe("t1");
      expect((await h.store.getConversation("via-session"))?.tenantId).toBe("t1");
      expect(await h.store.getConversation("other")).toBeNull();
    });

    it("views compose: forTenant(t).forUser(u) sees only u's records in t", async (ctx) => {
      requireCapabilities(h, ctx, "tenants");
      await seed(h.store);
      const view = h.store.forTenant("t1").forUser("u1");
      const same = h.store.forUser("u1").forTenant("t1");
      for (const v of [view, same]) {
        expect(ids(await listAll(v))).toEqual(["t1-u1"]);
        expect(ids((await v.queryTurnTraces()).items)).toEqual(["t1-u1-t"]);
        expect(await v.getConversation("t2-u1")).toBeNull();
        expect(await v.getConversation("t1-u2")).toBeNull();
        expect((await v.summarizeUsage(WINDOW))[0]!.turns).toBe(1);
      }
      expectThrow(() => view.forUser("u2"), "VALIDATION");
      expectThrow(() => view.forTenant("t2"), "VALIDATION");
      expect(ids(await listAll(view.forUser("u1").forTenant("t1")))).toEqual(["t1-u1"]);
    });

    it("without capabilities.tenants, tenant data and filters are UnsupportedOperationErrors", async (ctx) => {
      if (h.store.capabilities.tenants === true) ctx.skip(`${h.name} supports tenants`);
      expectThrow(() => h.store.forTenant("t1"), "UNSUPPORTED");
      await expectRejection(() => h.store.listConversations({ tenantId: "t1" }), "UNSUPPORTED");
      await expectRejection(
        () => h.store.storeConversation(conversation({ tenantId: "t1" })),
        "UNSUPPORTED",
      );
    });
  });
}
