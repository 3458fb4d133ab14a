import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { allConversations, allMessages, type DumpScope, dumpStore, listAll } from "../dump.js";
import { expectAllRejections, expectRejection } from "../expect-error.js";
import { conversation, fullTrace, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

const SCOPE: DumpScope = {
  userIds: ["alice", "bob"],
  conversationIds: ["missing-conv"],
  messageIds: ["new-msg", "missing-msg"],
};

/** Alice and Bob, one conversation each, each with a user message and a traced assistant message. */
async function seed(store: MessageStoreApi) {
  for (const user of ["alice", "bob"]) {
    const c = conversation({ id: `${user}-conv`, userId: user, updatedAt: T0 });
    await store.storeConversation(c);
    const [, a] = await store.storeMessages([
      message(c, { id: `${user}-m1`, timestamp: T0 + 1 }),
      message(c, { id: `${user}-m2`, role: "assistant", timestamp: T0 + 2, embedding: [1, 0] }),
    ]);
    await store.storeTurnTrace(
      fullTrace(a!, { id: `${user}-t2`, userId: user, agentId: "agent-1", timestamp: T0 + 2 }),
    );
  }
}

/** `store.forUser(userId)`: another user's data reads as not found and cannot be written. */
export function scopedViewSuite(h: Harness): void {
  describe("scoped view (forUser)", () => {
    it("another user's conversation reads exactly like a nonexistent one", async () => {
      await seed(h.store);
      const alice = h.store.forUser("alice");
      for (const id of ["bob-conv", "missing-conv"]) {
        expect(await alice.getConversation(id)).toBeNull();
        expect(await alice.getMessagesByConversationId(id)).toEqual({
          items: [],
          nextCursor: null,
        });
        expect(await alice.getMessagesByConversationId(id, { limit: 1 })).toEqual({
          items: [],
          nextCursor: null,
        });
        expect(await alice.getImmediateContext(id, 10)).toEqual([]);
        expect(await alice.queryTurnTraces({ conversationId: id })).toEqual({
          items: [],
          nextCursor: null,
        });
      }
      for (const id of ["bob-m1", "bob-m2", "missing-msg"]) {
        expect(await alice.getMessage(id)).toBeNull();
        expect(await alice.getTurnTraceByMessageId(id)).toBeNull();
      }
      expect(await alice.getConversationsByUserId("bob")).toEqual({ items: [], nextCursor: null });
      expect(await alice.listConversations({ userId: "bob" })).toEqual({
        items: [],
        nextCursor: null,
      });
    });

    it("lists and analytics only show the scoped user's data", async () => {
      await seed(h.store);
      const alice = h.store.forUser("alice");
      expect((await allConversations(alice, "alice")).map((c) => c.id)).toEqual(["alice-conv"]);
      expect((await listAll(alice)).map((c) => c.id)).toEqual(["alice-conv"]);
      expect((await listAll(alice, "alice", 1)).map((c) => c.id)).toEqual(["alice-conv"]);
      expect((await alice.getTurnTracesByAgentId("agent-1")).items.map((t) => t.id)).toEqual([
        "alice-t2",
      ]);
      expect((await alice.queryTurnTraces()).items.map((t) => t.id)).toEqual(["alice-t2"]);
      expect(await alice.queryTurnTraces({ userId: "bob" })).toEqual({
        items: [],
        nextCursor: null,
      });
      const usage = await alice.summarizeUsage({ since: 0, until: T0 * 2, bucket: "day" });
      expect(usage.map((b) => b.turns)).toEqual([1]);
      expect(
        await alice.summarizeUsage({ since: 0, until: T0 * 2, bucket: "day", userId: "bob" }),
      ).toEqual([]);
    });

    it("own data works normally through the view", async () => {
      await seed(h.store);
      const alice = h.store.forUser("alice");
      const c = await alice.storeConversation(
        conversation({ id: "alice-new", userId: "alice", updatedAt: T0 + 10 }),
      );
      expect(await alice.getConversation("alice-new")).toEqual(c);
      const [m1, m2] = await alice.storeMessages([
        message(c, { id: "an-1", timestamp: T0 + 20 }),
        message(c, { id: "an-2", role: "assistant", timestamp: T0 + 20 }),
      ]);
      const m3 = await alice.storeMessage(message(c, { id: "an-3", timestamp: T0 + 20 }));
      expect(await allMessages(alice, c.id)).toEqual([m1, m2, m3]);
      expect(await alice.flagMessage("an-3")).toEqual({ ...m3, isFlagged: true });
      expect(await alice.getImmediateContext(c.id, 5)).toEqual([m1, m2]);
      const t = await alice.storeTurnTrace(trace(m2!, { id: "an-t" }));
      expect(t.userId).toBe("alice");
      expect(await alice.getTurnTraceByMessageId("an-2")).toEqual(t);
      expect(await h.store.getTurnTraceByMessageId("an-2")).toEqual(t);
      expect((await allConversations(alice, "alice")).map((x) => x.id)).toEqual([
        "alice-new",
        "alice-conv",
      ]);
      expect(await alice.deleteConversation("alice-new")).toBe(true);
      expect(await h.store.getConversation("alice-new")).toBeNull();
      expect(h.store.forUser("alice").capabilities).toEqual(h.store.capabilities);
    });

    it("writing into another user's conversation is a NotFoundError and changes nothing", async () => {
      await seed(h.store);
      const alice = h.store.forUser("alice");
      const bobConv = { id: "bob-conv", userId: "alice" };
      const before = await dumpStore(h.store, SCOPE);
      const writes: [string, () => Promise<unknown>][] = [
        ["storeMessage", () => alice.storeMessage(message(bobConv, { id: "new-msg" }))],
        [
          "storeMessages",
          () =>
            alice.storeMessages([
              message({ id: "alice-conv", userId: "alice" }, { id: "new-msg" }),
              message(bobConv),
            ]),
        ],
        [
          "storeMessage (upsert of bob's message)",
          () => alice.storeMessage(message(bobConv, { id: "bob-m1", originalContent: "hijacked" })),
        ],
        [
          "storeMessage (moving bob's message into alice's conversation)",
          () =>
            alice.storeMessage(message({ id: "alice-conv", userId: "alice" }, { id: "bob-m1" })),
        ],
        ["flagMessage", () => alice.flagMessage("bob-m1")],
        ["flagMessage(…, false)", () => alice.flagMessage("bob-m2", false)],
        [
          "storeTurnTrace",
          () =>
            alice.storeTurnTrace(
              trace(
                { id: "bob-m1", conversationId: "bob-conv", userId: "alice" },
                { id: "new-trace" },
              ),
            ),
        ],
        [
          "storeTurnTrace (upsert of bob's trace)",
          () =>
            alice.storeTurnTrace(
              trace(
                { id: "bob-m2", conversationId: "bob-conv", userId: "alice" },
                { id: "bob-t2" },
              ),
            ),
        ],
        [
          "storeConversation (bob's id)",
          () =>
            alice.storeConversation(
              conversation({ id: "bob-conv", userId: "alice", title: "taken" }),
            ),
        ],
      ];
      await expectAllRejections(writes, "NOT_FOUND");
      expect(await dumpStore(h.store, SCOPE)).toEqual(before);
    });

    it("the NotFoundError for another user's record is the same as for a nonexistent one", async () => {
      await seed(h.store);
      const alice = h.store.forUser("alice");
      const pairs: [(id: string) => Promise<unknown>, string, string][] = [
        [
          (id) => alice.storeMessage(message({ id, userId: "alice" }, { id: "new-msg" })),
          "bob-conv",
          "missing-conv",
        ],
        [(id) => alice.flagMessage(id), "bob-m1", "missing-msg"],
        [
          (id) =>
            alice.storeTurnTrace(
              trace({ id: "alice-m1", conversationId: id, userId: "alice" }, { id: "x" }),
            ),
          "bob-conv",
          "missing-conv",
        ],
      ];
      for (const [write, foreign, missing] of pairs) {
        const a = await expectRejection(() => write(foreign), "NOT_FOUND", foreign);
        const b = await expectRejection(() => write(missing), "NOT_FOUND", missing);
        expect(a.message.replaceAll(foreign, "<id>")).toBe(b.message.replaceAll(missing, "<id>"));
        expect(a.name).toBe(b.name);
      }
    });

    it("deleting another user's conversation resolves false and deletes nothing", async () => {
      await seed(h.store);
      const alice = h.store.forUser("alice");
      const before = await dumpStore(h.store, SCOPE);
      expect(await alice.deleteConversation("bob-conv")).toBe(false);
      expect(await alice.deleteConversation("missing-conv")).toBe(false);
      expect(await alice.deleteUserData("bob")).toEqual({
        conversations: 0,
        messages: 0,
        turnTraces: 0,
      });
      expect(await dumpStore(h.store, SCOPE)).toEqual(before);
    });

    it("storing a conversation for another user through the view is rejected", async () => {
      await seed(h.store);
      const alice = h.store.forUser("alice");
      const before = await dumpStore(h.store, SCOPE);
      await expectRejection(
        () => alice.storeConversation(conversation({ id: "new-conv", userId: "bob" })),
        "VALIDATION",
      );
      await expectRejection(
        () =>
          alice.storeTurnTrace(
            trace(
              { id: "alice-m1", conversationId: "alice-conv", userId: "alice" },
              { userId: "bob" },
            ),
          ),
        "VALIDATION",
      );
      expect(await dumpStore(h.store, SCOPE)).toEqual(before);
      expect(await h.store.getConversation("new-conv")).toBeNull();
    });

    it("the view validates its input like the store: non-string ids and non-objects are ValidationErrors", async () => {
      await seed(h.store);
      const alice = h.store.forUser("alice");
      const NE = { $ne: null } as any;
      const calls: [string, () => Promise<unknown>][] = [
        ["getConversation", () => alice.getConversation(NE)],
        ["getConversationsByUserId", () => alice.getConversationsByUserId(NE)],
        ["listConversations({ userId })", () => alice.listConversations({ userId: NE })],
        ["listConversations({ limit: 0 })", () => alice.listConversations({ limit: 0 })],
        ["deleteConversation", () => alice.deleteConversation(NE)],
        ["getMessage", () => alice.getMessage(NE)],
        ["flagMessage", () => alice.flagMessage(NE)],
        ["getMessagesByConversationId", () => alice.getMessagesByConversationId(NE)],
        ["getImmediateContext", () => alice.getImmediateContext(NE, 3)],
        ["getTurnTraceByMessageId", () => alice.getTurnTraceByMessageId(NE)],
        ["getTurnTracesByAgentId", () => alice.getTurnTracesByAgentId(NE)],
        ["queryTurnTraces({ userId })", () => alice.queryTurnTraces({ userId: NE })],
        ["queryTurnTraces(null)", () => alice.queryTurnTraces(null as any)],
        [
          "summarizeUsage({ userId })",
          () => alice.summarizeUsage({ userId: NE, since: 0, until: 1, bucket: "day" }),
        ],
        ["deleteUserData", () => alice.deleteUserData(NE)],
        ["storeTurnTrace(null)", () => alice.storeTurnTrace(null as any)],
        ["storeMessage(null)", () => alice.storeMessage(null as any)],
        ["storeConversation(null)", () => alice.storeConversation(null as any)],
      ];
      const before = await dumpStore(h.store, SCOPE);
      await expectAllRejections(calls, "VALIDATION");
      expect(await dumpStore(h.store, SCOPE)).toEqual(before);
    });
  });
}
