import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { type DumpScope, dumpStore } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, fullMessage, fullTrace, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Two users, two conversations (A with two messages, one traced; B with one message). */
async function seed(store: MessageStoreApi) {
  const a = conversation({ id: "conv-a", userId: "u-a", updatedAt: T0 });
  const b = conversation({ id: "conv-b", userId: "u-b", updatedAt: T0 });
  await store.storeConversation(a);
  await store.storeConversation(b);
  const [a1, a2] = await store.storeMessages([
    message(a, { id: "a-1", timestamp: T0 + 1 }),
    fullMessage(a, { id: "a-2", timestamp: T0 + 2, isFlagged: false }),
  ]);
  const b1 = await store.storeMessage(
    message(b, { id: "b-1", role: "assistant", timestamp: T0 + 1 }),
  );
  const ta2 = await store.storeTurnTrace(fullTrace(a2!, { id: "trace-a-2" }));
  const scope: DumpScope = {
    userIds: ["u-a", "u-b", "u-c"],
    conversationIds: ["conv-missing"],
    messageIds: ["new-1", "new-2", "new-3", "m-missing"],
  };
  return { a, b, a1: a1!, a2: a2!, b1, ta2, scope };
}

/** Every row of the contract's integrity table; each checks that nothing was stored. */
export function integritySuite(h: Harness): void {
  describe("integrity", () => {
    async function unchanged(scope: DumpScope, action: () => Promise<void>) {
      const before = await dumpStore(h.store, scope);
      await action();
      expect(await dumpStore(h.store, scope)).toEqual(before);
    }

    it("a message for a conversation that does not exist is an IntegrityError; nothing is stored", async () => {
      const { scope } = await seed(h.store);
      await unchanged(scope, async () => {
        const orphan = message({ id: "conv-missing", userId: "u-a" }, { id: "new-1" });
        await expectRejection(() => h.store.storeMessage(orphan), "INTEGRITY");
      });
      expect(await h.store.getConversation("conv-missing")).toBeNull();
    });

    it("a batch with one message for a missing conversation stores none of it", async () => {
      const { a, scope } = await seed(h.store);
      await unchanged(scope, async () => {
        const batch = [
          message(a, { id: "new-1", timestamp: T0 + 1_000 }),
          message(a, { id: "a-1", timestamp: T0 + 1_000, originalContent: "overwritten?" }),
          message({ id: "conv-missing", userId: "u-a" }, { id: "new-2" }),
          message(a, { id: "new-3", timestamp: T0 + 2_000 }),
        ];
        await expectRejection(() => h.store.storeMessages(batch), "INTEGRITY");
      });
    });

    it("an upsert that moves a message to another conversation is an IntegrityError; nothing is stored", async () => {
      const { a1, b, scope } = await seed(h.store);
      await unchanged(scope, async () => {
        await expectRejection(
          () => h.store.storeMessage({ ...a1, conversationId: b.id, originalContent: "moved?" }),
          "INTEGRITY",
        );
      });
    });

    it("a batch with one moving upsert stores none of it", async () => {
      const { a, a1, b, scope } = await seed(h.store);
      await unchanged(scope, async () => {
        const batch = [
          message(b, { id: "new-1", timestamp: T0 + 5_000 }),
          message(a, { id: "new-2", timestamp: T0 + 5_000 }),
          { ...a1, conversationId: b.id },
        ];
        await expectRejection(() => h.store.storeMessages(batch), "INTEGRITY");
      });
    });

    it("a trace for a message that does not exist is an IntegrityError; nothing is stored", async () => {
      const { a, scope } = await seed(h.store);
      await unchanged(scope, async () => {
        const t = trace(
          { id: "m-missing", conversationId: a.id, userId: a.userId },
          { id: "trace-new" },
        );
        await expectRejection(() => h.store.storeTurnTrace(t), "INTEGRITY");
      });
      expect(await h.store.getTurnTraceByMessageId("m-missing")).toBeNull();
    });

    it("a trace whose conversationId differs from its message's is an IntegrityError; nothing is stored", async () => {
      const { a1, b, scope } = await seed(h.store);
      await unchanged(scope, async () => {
        const wrong = trace({ ...a1, conversationId: b.id }, { id: "trace-new" });
        await expectRejection(
          () => h.store.storeTurnTrace(wrong),
          "INTEGRITY",
          "other conversation",
        );
        const missing = trace({ ...a1, conversationId: "conv-missing" }, { id: "trace-new" });
        await expectRejection(
          () => h.store.storeTurnTrace(missing),
          "INTEGRITY",
          "missing conversation",
        );
      });
    });

    it("a second trace (other id) for a message is an IntegrityError; the first is unchanged", async () => {
      const { a2, scope } = await seed(h.store);
      await unchanged(scope, async () => {
        const second = trace(a2, { id: "trace-second", agentId: "agent-other" });
        await expectRejection(() => h.store.storeTurnTrace(second), "INTEGRITY");
      });
      expect(await h.store.getTurnTracesByAgentId("agent-other")).toEqual({
        items: [],
        nextCursor: null,
      });
    });

    it("a trace upsert that moves it onto a message that already has a trace is an IntegrityError", async () => {
      const { a2, b1, ta2, scope } = await seed(h.store);
      await h.store.storeTurnTrace(trace(b1, { id: "trace-b-1" }));
      await unchanged(scope, async () => {
        const move = { ...ta2, messageId: b1.id, conversationId: b1.conversationId };
        await expectRejection(() => h.store.storeTurnTrace(move), "INTEGRITY");
      });
      expect((await h.store.getTurnTraceByMessageId(a2.id))?.id).toBe("trace-a-2");
      expect((await h.store.getTurnTraceByMessageId(b1.id))?.id).toBe("trace-b-1");
    });

    it("flagMessage on an unknown id is a NotFoundError; nothing is stored", async () => {
      const { scope } = await seed(h.store);
      await unchanged(scope, async () => {
        await expectRejection(() => h.store.flagMessage("m-missing"), "NOT_FOUND");
        await expectRejection(() => h.store.flagMessage("m-missing", false), "NOT_FOUND");
      });
    });

    it("after integrity errors the store keeps working normally", async () => {
      const { a, a1, b } = await seed(h.store);
      await expectRejection(
        () => h.store.storeMessage({ ...a1, conversationId: b.id }),
        "INTEGRITY",
      );
      await expectRejection(
        () => h.store.storeMessage(message({ id: "nope", userId: "u" })),
        "INTEGRITY",
      );
      const fresh = await h.store.storeMessage(message(a, { id: "after", timestamp: T0 + 10 }));
      expect(await h.store.getMessage("after")).toEqual(fresh);
      const t = await h.store.storeTurnTrace(trace(fresh, { id: "after-trace" }));
      expect(await h.store.getTurnTraceByMessageId("after")).toEqual(t);
      expect((await h.store.getMessagesByConversationId(a.id)).items.map((m) => m.id)).toEqual([
        "a-1",
        "a-2",
        "after",
      ]);
    });
  });
}
