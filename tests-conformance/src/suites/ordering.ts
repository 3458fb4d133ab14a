import { describe, expect, it } from "vitest";
import { allAgentTraces, allConversations, allMessages, allTraces, listAll } from "../dump.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Ids whose code-point order differs from UTF-16 order and from case-insensitive order. */
const TRICKY_IDS = ["a", "B", "é", "😀", "\uFFFD", "ab", "Z"];
/** TRICKY_IDS ascending by Unicode code point (= UTF-8 byte order). */
const TRICKY_ASC = ["B", "Z", "a", "ab", "é", "\uFFFD", "😀"];

/** Every ordering rule: message ties, upserts, lastActivityAt, conversation and trace order. */
export function orderingSuite(h: Harness): void {
  describe("ordering", () => {
    const ids = async (conversationId: string, limit?: number) =>
      (await allMessages(h.store, conversationId, limit)).map((m) => m.id);

    it("same-timestamp messages stored by separate calls keep store order (tool call before result)", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const t = T0 + 5_000;
      await h.store.storeMessage(message(c, { id: "zz-user", timestamp: t }));
      await h.store.storeMessage(
        message(c, {
          id: "yy-call",
          role: "assistant",
          timestamp: t,
          toolCalls: [{ toolCallId: "call-1", toolName: "lookup" }],
        }),
      );
      await h.store.storeMessage(
        message(c, {
          id: "xx-result",
          role: "tool",
          timestamp: t,
          toolCallId: "call-1",
          toolName: "lookup",
        }),
      );
      await h.store.storeMessage(message(c, { id: "ww-answer", role: "assistant", timestamp: t }));
      const expected = ["zz-user", "yy-call", "xx-result", "ww-answer"];
      expect(await ids(c.id)).toEqual(expected);
      expect(await ids(c.id, 1)).toEqual(expected);
      expect((await h.store.getImmediateContext(c.id, 10)).map((m) => m.id)).toEqual(expected);
    });

    it("same-timestamp messages inside one batch keep array order", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const order = ["m-9", "m-1", "m-5", "M-0", "m-3"];
      await h.store.storeMessages(order.map((id) => message(c, { id, timestamp: T0 })));
      expect(await ids(c.id)).toEqual(order);
      expect(await ids(c.id, 2)).toEqual(order);
    });

    it("messages sort by timestamp whatever order they were stored in", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const stamps = [50, 10, 40, 20, 30, 0];
      for (const ts of stamps)
        await h.store.storeMessage(message(c, { id: `t-${ts}`, timestamp: T0 + ts }));
      await h.store.storeMessages([
        message(c, { id: "t-25", timestamp: T0 + 25 }),
        message(c, { id: "t-5", timestamp: T0 + 5 }),
      ]);
      expect(await ids(c.id)).toEqual([
        "t-0",
        "t-5",
        "t-10",
        "t-20",
        "t-25",
        "t-30",
        "t-40",
        "t-50",
      ]);
    });

    it("a new message goes after every stored message with the same timestamp", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      await h.store.storeMessages([
        message(c, { id: "a", timestamp: T0 }),
        message(c, { id: "b", timestamp: T0 }),
      ]);
      await h.store.storeMessage(message(c, { id: "c", timestamp: T0 - 1 }));
      await h.store.storeMessage(message(c, { id: "0-first-by-id", timestamp: T0 }));
      await h.store.storeMessages([
        message(c, { id: "d", timestamp: T0 }),
        message(c, { id: "e", timestamp: T0 + 1 }),
      ]);
      expect(await ids(c.id)).toEqual(["c", "a", "b", "0-first-by-id", "d", "e"]);
    });

    it("an upsert keeps the message's place", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      await h.store.storeMessages(["p", "q", "r"].map((id) => message(c, { id, timestamp: T0 })));
      await h.store.storeMessage(message(c, { id: "p", timestamp: T0, originalContent: "edited" }));
      await h.store.storeMessages([
        message(c, { id: "q", timestamp: T0, originalContent: "edited too" }),
      ]);
      await h.store.flagMessage("r");
      expect(await ids(c.id)).toEqual(["p", "q", "r"]);
      expect((await h.store.getMessage("p"))?.originalContent).toBe("edited");
    });

    it("an upsert that changes the timestamp re-sorts by timestamp but keeps its receipt order", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      await h.store.storeMessage(message(c, { id: "A", timestamp: T0 + 10 }));
      await h.store.storeMessage(message(c, { id: "B", timestamp: T0 + 10 }));
      await h.store.storeMessage(message(c, { id: "C", timestamp: T0 + 20 }));
      await h.store.storeMessage(message(c, { id: "A", timestamp: T0 + 20 }));
      expect(await ids(c.id)).toEqual(["B", "A", "C"]);
      expect(await ids(c.id, 1)).toEqual(["B", "A", "C"]);
    });

    it("a batch mixing upserts and new messages: existing ones keep their place, new ones follow in array order", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      await h.store.storeMessages([
        message(c, { id: "A", timestamp: T0 }),
        message(c, { id: "B", timestamp: T0 }),
      ]);
      await h.store.storeMessages(
        ["N1", "B", "N2", "A"].map((id) =>
          message(c, { id, timestamp: T0, originalContent: `v2 ${id}` }),
        ),
      );
      expect(await ids(c.id)).toEqual(["A", "B", "N1", "N2"]);
      expect((await h.store.getMessage("A"))?.originalContent).toBe("v2 A");
    });

    it("lastActivityAt is the greater of updatedAt and the newest message timestamp", async () => {
      const c = conversation({ createdAt: T0, updatedAt: T0 + 100 });
      expect((await h.store.storeConversation(c)).lastActivityAt).toBe(T0 + 100);
      const activity = async () => {
        const read = await h.store.getConversation(c.id);
        const [listed] = await allConversations(h.store, c.userId);
        expect(listed).toEqual(read);
        return read!.lastActivityAt;
      };
      await h.store.storeMessage(message(c, { timestamp: T0 + 50 }));
      expect(await activity()).toBe(T0 + 100);
      await h.store.storeMessage(message(c, { timestamp: T0 + 200 }));
      expect(await activity()).toBe(T0 + 200);
      await h.store.storeMessages([
        message(c, { timestamp: T0 + 400 }),
        message(c, { timestamp: T0 + 250 }),
      ]);
      expect(await activity()).toBe(T0 + 400);
      const flagged = await h.store.storeMessage(message(c, { timestamp: T0 + 500 }));
      await h.store.flagMessage(flagged.id);
      expect(await activity()).toBe(T0 + 500);
    });

    it("a conversation upsert keeps the activity of its messages", async () => {
      const c = conversation({ createdAt: T0, updatedAt: T0 });
      await h.store.storeConversation(c);
      await h.store.storeMessage(message(c, { timestamp: T0 + 200 }));
      const older = await h.store.storeConversation({
        ...c,
        updatedAt: T0 + 150,
        title: "renamed",
      });
      expect(older.lastActivityAt).toBe(T0 + 200);
      expect(await h.store.getConversation(c.id)).toEqual(older);
      const newer = await h.store.storeConversation({ ...c, updatedAt: T0 + 300 });
      expect(newer.lastActivityAt).toBe(T0 + 300);
      const back = await h.store.storeConversation({ ...c, updatedAt: T0 });
      expect(back.lastActivityAt).toBe(T0 + 200);
      expect(await h.store.getConversation(c.id)).toEqual(back);
    });

    it("lastActivityAt never moves backward when a message is upserted to an earlier timestamp", async () => {
      const c = conversation({ createdAt: T0, updatedAt: T0 });
      await h.store.storeConversation(c);
      const m = await h.store.storeMessage(message(c, { timestamp: T0 + 500 }));
      await h.store.storeMessage({ ...m, timestamp: T0 + 10 });
      expect((await h.store.getConversation(c.id))?.lastActivityAt).toBe(T0 + 500);
    });

    it("conversations list by lastActivityAt descending, then id ascending by code point", async () => {
      const user = "order-user";
      for (const id of TRICKY_IDS)
        await h.store.storeConversation(conversation({ id, userId: user, updatedAt: T0 + 10 }));
      await h.store.storeConversation(conversation({ id: "y", userId: user, updatedAt: T0 + 20 }));
      const x = conversation({ id: "x", userId: user, updatedAt: T0 });
      await h.store.storeConversation(x);
      await h.store.storeMessage(message(x, { timestamp: T0 + 20 }));
      const expected = ["x", "y", ...TRICKY_ASC];
      for (const limit of [undefined, 1, 2, 3, 100]) {
        expect((await allConversations(h.store, user, limit)).map((c) => c.id)).toEqual(expected);
      }
    });

    it("listConversations orders by id ascending by code point, across users or for one user", async () => {
      for (const [i, id] of TRICKY_IDS.entries()) {
        await h.store.storeConversation(
          conversation({ id, userId: i % 2 ? "odd" : "even", updatedAt: T0 + i }),
        );
      }
      const c = await h.store.getConversation("a");
      await h.store.storeMessage(message(c!, { timestamp: T0 + 100 }));
      for (const limit of [undefined, 1, 2, 3, 100]) {
        expect((await listAll(h.store, undefined, limit)).map((x) => x.id)).toEqual(TRICKY_ASC);
        const odd = TRICKY_ASC.filter((id) => TRICKY_IDS.indexOf(id) % 2 === 1);
        expect((await listAll(h.store, "odd", limit)).map((x) => x.id)).toEqual(odd);
      }
      for (const listed of await listAll(h.store))
        expect(await h.store.getConversation(listed.id)).toEqual(listed);
    });

    it("a new message moves its conversation to the front of the list", async () => {
      const user = "activity-user";
      const a = conversation({ id: "conv-a", userId: user, updatedAt: T0 + 1 });
      const b = conversation({ id: "conv-b", userId: user, updatedAt: T0 + 2 });
      await h.store.storeConversation(a);
      await h.store.storeConversation(b);
      expect((await allConversations(h.store, user)).map((c) => c.id)).toEqual([
        "conv-b",
        "conv-a",
      ]);
      await h.store.storeMessage(message(a, { timestamp: T0 + 3 }));
      expect((await allConversations(h.store, user)).map((c) => c.id)).toEqual([
        "conv-a",
        "conv-b",
      ]);
    });

    it("traces list by timestamp descending, then id descending by code point", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const ids = [...TRICKY_IDS, "late", "early"];
      const ms = await h.store.storeMessages(
        ids.map((id) => message(c, { id: `m-${id}`, role: "assistant" })),
      );
      for (const [i, id] of ids.entries()) {
        const timestamp = id === "late" ? T0 + 20 : id === "early" ? T0 : T0 + 10;
        await h.store.storeTurnTrace(trace(ms[i]!, { id, agentId: "order-agent", timestamp }));
      }
      const expected = ["late", ...[...TRICKY_ASC].reverse(), "early"];
      for (const limit of [undefined, 1, 2, 4]) {
        expect((await allAgentTraces(h.store, "order-agent", limit)).map((t) => t.id)).toEqual(
          expected,
        );
        expect((await allTraces(h.store, limit)).map((t) => t.id)).toEqual(expected);
      }
    });
  });
}
