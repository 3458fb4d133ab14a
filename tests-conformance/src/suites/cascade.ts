import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import {
  allAgentTraces,
  allConversations,
  allMessages,
  allTraces,
  dumpStore,
  listAll,
  withoutConversations,
} from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, fullTrace, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** A conversation with 3 messages, 2 of them traced (agent "cascade-agent"). */
async function populated(store: MessageStoreApi, userId: string, id: string) {
  const c = conversation({ id, userId });
  await store.storeConversation(c);
  const ms = await store.storeMessages([
    message(c, { id: `${id}-m1`, timestamp: T0 + 1 }),
    message(c, { id: `${id}-m2`, role: "assistant", timestamp: T0 + 2 }),
    message(c, { id: `${id}-m3`, role: "assistant", timestamp: T0 + 3 }),
  ]);
  await store.storeTurnTrace(fullTrace(ms[1]!, { id: `${id}-t2`, agentId: "cascade-agent" }));
  await store.storeTurnTrace(trace(ms[2]!, { id: `${id}-t3`, agentId: "cascade-agent" }));
  return { c, ms };
}

/** deleteConversation: cascades to messages and traces, leaves everything else alone. */
export function cascadeSuite(h: Harness): void {
  describe("deleteConversation (cascade)", () => {
    it("removes the conversation, its messages and their traces, and resolves true", async () => {
      const { c, ms } = await populated(h.store, "u-1", "doomed");
      expect(await h.store.deleteConversation(c.id)).toBe(true);
      expect(await h.store.getConversation(c.id)).toBeNull();
      expect(await h.store.getMessagesByConversationId(c.id)).toEqual({
        items: [],
        nextCursor: null,
      });
      expect(await h.store.getImmediateContext(c.id, 10)).toEqual([]);
      for (const m of ms) {
        expect(await h.store.getMessage(m.id)).toBeNull();
        expect(await h.store.getTurnTraceByMessageId(m.id)).toBeNull();
      }
      expect(await allAgentTraces(h.store, "cascade-agent")).toEqual([]);
      expect(await allTraces(h.store)).toEqual([]);
      expect(await h.store.queryTurnTraces({ conversationId: c.id })).toEqual({
        items: [],
        nextCursor: null,
      });
      expect(await allConversations(h.store, "u-1")).toEqual([]);
      expect(await listAll(h.store)).toEqual([]);
    });

    it("leaves other conversations of the same and of other users untouched", async () => {
      await populated(h.store, "u-1", "keep-same-user");
      await populated(h.store, "u-2", "keep-other-user");
      const { c } = await populated(h.store, "u-1", "doomed");
      const scope = {
        userIds: ["u-1", "u-2"],
        conversationIds: ["keep-same-user", "keep-other-user"],
      };
      const before = await dumpStore(h.store, scope);
      expect(await h.store.deleteConversation(c.id)).toBe(true);
      const after = await dumpStore(h.store, scope);
      const expected = withoutConversations(before, [c.id]);
      expect(after).toEqual(expected);
      expect(after.traces).toHaveLength(4);
    });

    it("resolves false for an unknown id, and for an id deleted before", async () => {
      const { c } = await populated(h.store, "u-1", "once");
      const before = await dumpStore(h.store, { userIds: ["u-1"] });
      expect(await h.store.deleteConversation("never-existed")).toBe(false);
      expect(await dumpStore(h.store, { userIds: ["u-1"] })).toEqual(before);
      expect(await h.store.deleteConversation(c.id)).toBe(true);
      expect(await h.store.deleteConversation(c.id)).toBe(false);
    });

    it("deletes an empty conversation", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      expect(await h.store.deleteConversation(c.id)).toBe(true);
      expect(await h.store.getConversation(c.id)).toBeNull();
    });

    it("a conversation re-created with the same id starts empty, and old ids can be reused", async () => {
      const { c, ms } = await populated(h.store, "u-1", "phoenix");
      await h.store.deleteConversation(c.id);
      const reborn = await h.store.storeConversation(conversation({ id: c.id, userId: "u-1" }));
      expect(reborn.lastActivityAt).toBe(reborn.updatedAt);
      expect(await allMessages(h.store, c.id)).toEqual([]);
      expect(await h.store.getTurnTraceByMessageId(ms[1]!.id)).toBeNull();
      const again = await h.store.storeMessage(
        message(c, { id: ms[1]!.id, role: "assistant", timestamp: T0 + 9 }),
      );
      await h.store.storeMessage(message(c, { id: "later", timestamp: T0 + 9 }));
      expect((await allMessages(h.store, c.id)).map((m) => m.id)).toEqual([ms[1]!.id, "later"]);
      const t = await h.store.storeTurnTrace(trace(again, { id: "phoenix-t2" }));
      expect(await h.store.getTurnTraceByMessageId(again.id)).toEqual(t);
    });

    it("a message for a deleted conversation is an IntegrityError", async () => {
      const { c } = await populated(h.store, "u-1", "gone");
      await h.store.deleteConversation(c.id);
      await expectRejection(() => h.store.storeMessage(message(c)), "INTEGRITY");
      expect(await h.store.getConversation(c.id)).toBeNull();
    });
  });
}
