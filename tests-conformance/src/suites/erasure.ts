import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { allConversations, allTraces, dumpStore, listAll, withoutConversations } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** `userId` owns `conversations` conversations, each with 3 messages of which `traced` have traces. */
async function populate(
  store: MessageStoreApi,
  userId: string,
  conversations: number,
  traced: number,
) {
  for (let i = 0; i < conversations; i++) {
    const c = conversation({ id: `${userId}-c${i}`, userId });
    await store.storeConversation(c);
    const ms = await store.storeMessages(
      [0, 1, 2].map((j) =>
        message(c, { id: `${c.id}-m${j}`, role: "assistant", timestamp: T0 + j }),
      ),
    );
    for (const m of ms.slice(0, traced))
      await store.storeTurnTrace(trace(m, { id: `${m.id}-t`, userId }));
  }
}

/** deleteUserData: removes every conversation of the user with messages and traces, and counts them. */
export function erasureSuite(h: Harness): void {
  describe("deleteUserData (erasure)", () => {
    it("deletes the user's conversations, messages and traces and returns the counts", async () => {
      await populate(h.store, "erase-me", 3, 2);
      const counts = await h.store.deleteUserData("erase-me");
      expect(counts).toEqual({ conversations: 3, messages: 9, turnTraces: 6 });
      expect(await allConversations(h.store, "erase-me")).toEqual([]);
      for (let i = 0; i < 3; i++) {
        expect(await h.store.getConversation(`erase-me-c${i}`)).toBeNull();
        expect(await h.store.getMessage(`erase-me-c${i}-m0`)).toBeNull();
        expect(await h.store.getTurnTraceByMessageId(`erase-me-c${i}-m0`)).toBeNull();
      }
      expect(await allTraces(h.store)).toEqual([]);
      expect(await listAll(h.store)).toEqual([]);
    });

    it("leaves other users untouched", async () => {
      await populate(h.store, "keep-1", 2, 1);
      await populate(h.store, "keep-2", 1, 3);
      await populate(h.store, "erase-me", 2, 2);
      const scope = { userIds: ["keep-1", "keep-2"] };
      const before = await dumpStore(h.store, scope);
      expect(await h.store.deleteUserData("erase-me")).toEqual({
        conversations: 2,
        messages: 6,
        turnTraces: 4,
      });
      const after = await dumpStore(h.store, scope);
      expect(after).toEqual(withoutConversations(before, ["erase-me-c0", "erase-me-c1"]));
      expect(after.traces).toHaveLength(5);
    });

    it("goes by the conversation's owner, which every message and trace of it carries", async () => {
      const mine = conversation({ id: "mine", userId: "erase-me" });
      const theirs = conversation({ id: "theirs", userId: "other" });
      await h.store.storeConversation(mine);
      await h.store.storeConversation(theirs);
      // A record tagged with another user than its conversation's owner cannot exist.
      await expectRejection(
        () => h.store.storeMessage(message(mine, { userId: "other", role: "assistant" })),
        "INTEGRITY",
      );
      const inMine = await h.store.storeMessage(message(mine, { role: "assistant" }));
      await expectRejection(
        () => h.store.storeTurnTrace(trace(inMine, { userId: "other" })),
        "INTEGRITY",
      );
      await h.store.storeTurnTrace(trace(inMine));
      const inTheirs = await h.store.storeMessage(message(theirs, { role: "assistant" }));
      const kept = await h.store.storeTurnTrace(trace(inTheirs));
      expect(await h.store.deleteUserData("erase-me")).toEqual({
        conversations: 1,
        messages: 1,
        turnTraces: 1,
      });
      expect(await h.store.getMessage(inMine.id)).toBeNull();
      expect(await h.store.getMessage(inTheirs.id)).toEqual(inTheirs);
      expect(await allTraces(h.store)).toEqual([kept]);
    });

    it("an unknown user, or a second call, gives zero counts and changes nothing", async () => {
      await populate(h.store, "keep", 1, 1);
      await populate(h.store, "erase-me", 1, 0);
      const scope = { userIds: ["keep", "erase-me"] };
      const before = await dumpStore(h.store, scope);
      expect(await h.store.deleteUserData("nobody")).toEqual({
        conversations: 0,
        messages: 0,
        turnTraces: 0,
      });
      expect(await h.store.deleteUserData("KEEP")).toEqual({
        conversations: 0,
        messages: 0,
        turnTraces: 0,
      });
      expect(await dumpStore(h.store, scope)).toEqual(before);
      expect(await h.store.deleteUserData("erase-me")).toEqual({
        conversations: 1,
        messages: 3,
        turnTraces: 0,
      });
      expect(await h.store.deleteUserData("erase-me")).toEqual({
        conversations: 0,
        messages: 0,
        turnTraces: 0,
      });
    });

    it("a conversation without messages counts as one conversation", async () => {
      await h.store.storeConversation(conversation({ userId: "erase-me" }));
      expect(await h.store.deleteUserData("erase-me")).toEqual({
        conversations: 1,
        messages: 0,
        turnTraces: 0,
      });
    });

    it("the user can start over afterwards", async () => {
      await populate(h.store, "erase-me", 1, 1);
      await h.store.deleteUserData("erase-me");
      await populate(h.store, "erase-me", 1, 1);
      expect((await allConversations(h.store, "erase-me")).map((c) => c.id)).toEqual([
        "erase-me-c0",
      ]);
      expect(await allTraces(h.store)).toHaveLength(1);
    });
  });
}
