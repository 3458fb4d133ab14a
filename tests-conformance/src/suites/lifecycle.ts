import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { allMessages, type DumpScope, dumpStore } from "../dump.js";
import { expectRejection, expectThrow } from "../expect-error.js";
import {
  conversation,
  fullConversation,
  fullMessage,
  fullTrace,
  message,
  T0,
  trace,
} from "../fixtures.js";
import type { Harness } from "../harness.js";

/** One valid call of every method of the contract. */
const CALLS: [string, (s: MessageStoreApi) => Promise<unknown>][] = [
  ["storeConversation", (s) => s.storeConversation(conversation({ id: "life-conv-2" }))],
  ["getConversation", (s) => s.getConversation("life-conv")],
  ["getConversationsByUserId", (s) => s.getConversationsByUserId("life-user", { limit: 1 })],
  ["listConversations", (s) => s.listConversations({ limit: 1 })],
  ["deleteConversation", (s) => s.deleteConversation("life-conv")],
  ["storeMessage", (s) => s.storeMessage(message({ id: "life-conv", userId: "life-user" }))],
  ["storeMessages", (s) => s.storeMessages([message({ id: "life-conv", userId: "life-user" })])],
  ["storeMessages([])", (s) => s.storeMessages([])],
  ["getMessage", (s) => s.getMessage("life-msg")],
  ["flagMessage", (s) => s.flagMessage("life-msg")],
  ["getMessagesByConversationId", (s) => s.getMessagesByConversationId("life-conv")],
  ["getImmediateContext", (s) => s.getImmediateContext("life-conv", 5)],
  ["getImmediateContext(…, 0)", (s) => s.getImmediateContext("life-conv", 0)],
  [
    "storeTurnTrace",
    (s) =>
      s.storeTurnTrace(
        trace({ id: "life-msg", conversationId: "life-conv", userId: "life-user" }, { id: "t2" }),
      ),
  ],
  ["getTurnTraceByMessageId", (s) => s.getTurnTraceByMessageId("life-msg")],
  ["getTurnTracesByAgentId", (s) => s.getTurnTracesByAgentId("agent-1")],
  ["queryTurnTraces", (s) => s.queryTurnTraces({})],
  ["summarizeUsage", (s) => s.summarizeUsage({ since: 0, until: T0 * 2, bucket: "day" })],
  ["deleteUserData", (s) => s.deleteUserData("life-user")],
  ["searchMessages", (s) => s.searchMessages({ embedding: [1, 0] })],
];

async function seed(store: MessageStoreApi) {
  const c = fullConversation({ id: "life-conv", userId: "life-user" });
  await store.storeConversation(c);
  const m = await store.storeMessage(fullMessage(c, { id: "life-msg", isFlagged: false }));
  await store.storeTurnTrace(fullTrace(m, { id: "life-trace", agentId: "agent-1" }));
  return { c, m };
}

const SCOPE: DumpScope = { userIds: ["life-user", "other-user"] };

/** close(): idempotent, rejects later calls, waits for calls in flight; persistence across reopen. */
export function lifecycleSuite(h: Harness): void {
  describe("close and persistence", () => {
    it("close() resolves, and can be called twice (also concurrently)", async () => {
      await seed(h.store);
      const store = h.store;
      const [a, b] = await Promise.all([store.close(), store.close()]);
      expect(a).toBeUndefined();
      expect(b).toBeUndefined();
      await expect(store.close()).resolves.toBeUndefined();
    });

    for (const [name, call] of CALLS) {
      it(`${name} rejects with StoreClosedError after close()`, async () => {
        await seed(h.store);
        await h.store.close();
        await expectRejection(() => call(h.store), "STORE_CLOSED", name);
      });
    }

    it("after close() even invalid input rejects with StoreClosedError", async () => {
      await h.store.close();
      await expectRejection(() => h.store.getConversation({ $ne: null } as any), "STORE_CLOSED");
      await expectRejection(() => h.store.storeMessage(null as any), "STORE_CLOSED");
      await expectRejection(() => h.store.getImmediateContext("c", -1), "STORE_CLOSED");
    });

    it("a scoped view rejects with StoreClosedError once its store is closed; forUser throws it", async () => {
      await seed(h.store);
      const view = h.store.forUser("life-user");
      await h.store.close();
      await expectRejection(
        () => view.getConversation("life-conv"),
        "STORE_CLOSED",
        "view.getConversation",
      );
      await expectRejection(
        () => view.getMessagesByConversationId("life-conv"),
        "STORE_CLOSED",
        "view.getMessagesByConversationId",
      );
      await expectRejection(
        () => view.storeConversation(conversation({ userId: "life-user" })),
        "STORE_CLOSED",
        "view.storeConversation",
      );
      await expectRejection(() => view.queryTurnTraces({}), "STORE_CLOSED", "view.queryTurnTraces");
      await expectRejection(
        () => view.listConversations(),
        "STORE_CLOSED",
        "view.listConversations",
      );
      expectThrow(() => h.store.forUser("life-user"), "STORE_CLOSED", "forUser after close");
    });

    it("Symbol.asyncDispose closes the store", async () => {
      await seed(h.store);
      const store = h.store;
      await store[Symbol.asyncDispose]();
      await expectRejection(() => store.getMessage("life-msg"), "STORE_CLOSED");
      await expect(store.close()).resolves.toBeUndefined();
    });

    it("close() waits for calls in flight: a write started before close() completes", async () => {
      const c = conversation({ id: "inflight", userId: "life-user" });
      await h.store.storeConversation(c);
      const batch = Array.from({ length: 200 }, (_, i) => message(c, { timestamp: T0 + i }));
      const write = h.store.storeMessages(batch);
      const read = h.store.getMessage("nothing");
      const closing = h.store.close();
      await expect(write).resolves.toHaveLength(200);
      await expect(read).resolves.toBeNull();
      await closing;
      if (!h.persistent) return;
      const reopened = await h.reopen();
      expect(await allMessages(reopened, c.id)).toEqual(await write);
    });

    describe("persistence across close and reopen", () => {
      it.skipIf(!h.persistent)("every record reads back identically after reopening", async () => {
        await seed(h.store);
        const other = conversation({ userId: "other-user" });
        await h.store.storeConversation(other);
        const m = await h.store.storeMessage(
          message(other, { role: "assistant", timestamp: T0 + 7 }),
        );
        await h.store.storeTurnTrace(trace(m, { agentId: "agent-1", timestamp: T0 + 9 }));
        const before = await dumpStore(h.store, SCOPE);
        const reopened = await h.reopen();
        expect(await dumpStore(reopened, SCOPE)).toEqual(before);
        expect(before.traces).toHaveLength(2);
      });

      it.skipIf(!h.persistent)(
        "receipt order survives reopening: ties, upserts and later stores",
        async () => {
          const c = conversation({ userId: "life-user" });
          await h.store.storeConversation(c);
          await h.store.storeMessages(
            ["z", "y", "x"].map((id) => message(c, { id, timestamp: T0 })),
          );
          await h.store.storeMessage(message(c, { id: "w", timestamp: T0 }));
          let store = await h.reopen();
          expect((await allMessages(store, c.id)).map((m) => m.id)).toEqual(["z", "y", "x", "w"]);
          await store.storeMessage(message(c, { id: "a", timestamp: T0 }));
          await store.storeMessage(
            message(c, { id: "y", timestamp: T0, originalContent: "edited" }),
          );
          store = await h.reopen();
          expect((await allMessages(store, c.id)).map((m) => m.id)).toEqual([
            "z",
            "y",
            "x",
            "w",
            "a",
          ]);
          expect((await store.getMessage("y"))?.originalContent).toBe("edited");
        },
      );

      it.skipIf(!h.persistent)("flags, upserts and deletes survive reopening", async () => {
        await seed(h.store);
        const gone = conversation({ id: "gone", userId: "life-user" });
        await h.store.storeConversation(gone);
        await h.store.storeMessage(message(gone, { id: "gone-msg" }));
        await h.store.flagMessage("life-msg");
        await h.store.storeConversation(
          conversation({ id: "life-conv", userId: "life-user", title: "renamed" }),
        );
        await h.store.deleteConversation("gone");
        await h.store.storeConversation(conversation({ id: "erased", userId: "erased-user" }));
        await h.store.deleteUserData("erased-user");
        const before = await dumpStore(h.store, {
          ...SCOPE,
          conversationIds: ["gone", "erased"],
          messageIds: ["gone-msg"],
        });
        const store = await h.reopen();
        const after = await dumpStore(store, {
          ...SCOPE,
          conversationIds: ["gone", "erased"],
          messageIds: ["gone-msg"],
        });
        expect(after).toEqual(before);
        expect(after.conversations.gone).toBeNull();
        expect(after.conversations.erased).toBeNull();
        expect(after.messages["life-msg"]?.isFlagged).toBe(true);
        expect(after.conversations["life-conv"]?.title).toBe("renamed");
      });

      it.skipIf(!h.persistent)(
        "lastActivityAt from messages survives reopening and later conversation upserts",
        async () => {
          const c = conversation({ userId: "life-user", updatedAt: T0 });
          await h.store.storeConversation(c);
          await h.store.storeMessage(message(c, { timestamp: T0 + 500 }));
          let store = await h.reopen();
          expect((await store.getConversation(c.id))?.lastActivityAt).toBe(T0 + 500);
          await store.storeConversation({ ...c, updatedAt: T0 + 100 });
          store = await h.reopen();
          expect((await store.getConversation(c.id))?.lastActivityAt).toBe(T0 + 500);
        },
      );

      it.skipIf(!h.persistent)(
        "a cursor issued before close continues after reopening",
        async () => {
          const c = conversation({ userId: "life-user" });
          await h.store.storeConversation(c);
          await h.store.storeMessages(
            Array.from({ length: 9 }, (_, i) =>
              message(c, { id: `k${i}`, timestamp: T0 + (i % 2) }),
            ),
          );
          const whole = (await h.store.getMessagesByConversationId(c.id)).items.map((m) => m.id);
          const first = await h.store.getMessagesByConversationId(c.id, { limit: 4 });
          const store = await h.reopen();
          const rest = await store.getMessagesByConversationId(c.id, { cursor: first.nextCursor });
          expect([...first.items, ...rest.items].map((m) => m.id)).toEqual(whole);
        },
      );

      it.skipIf(!h.persistent)("reopening twice without writes changes nothing", async () => {
        await seed(h.store);
        const before = await dumpStore(h.store, SCOPE);
        await h.reopen();
        const store = await h.reopen();
        expect(await dumpStore(store, SCOPE)).toEqual(before);
      });
    });
  });
}
