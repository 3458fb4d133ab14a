import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { allTraces } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

const WINDOW = { since: T0, until: T0 + 86_400_000, bucket: "day" } as const;

/** Alice and Bob, one conversation each, a user message and a traced assistant message each. */
async function seed(store: MessageStoreApi) {
  const out: Record<string, { conv: string; user: string; assistant: string; trace: string }> = {};
  for (const [user, embedding] of [
    ["alice", [0, 1]],
    ["bob", [1, 0]],
  ] as const) {
    const c = await store.storeConversation(conversation({ id: `${user}-conv`, userId: user }));
    await store.storeMessages([
      message(c, { id: `${user}-m1`, timestamp: T0 + 1, embedding: [...embedding] }),
      message(c, { id: `${user}-m2`, role: "assistant", timestamp: T0 + 2 }),
    ]);
    await store.storeTurnTrace(
      trace(
        { id: `${user}-m2`, conversationId: c.id, userId: user },
        { id: `${user}-t`, userId: user },
      ),
    );
    out[user] = { conv: c.id, user, assistant: `${user}-m2`, trace: `${user}-t` };
  }
  return out;
}

/**
 * The ownership rules (every record carries its conversation's owner) and the scoped-view
 * security cases of issue #15: trace hijack, search oracle, userId poisoning, null-userId
 * traces, racing scoped creates, consistent scoped aggregates. The rules hold on every adapter,
 * so only the cases that need another capability (search, soft delete) are skipped without it.
 */
export function ownershipSuite(h: Harness): void {
  describe("ownership rules and scoped-view security", () => {
    it("userId poisoning: a message's userId must be its conversation's owner, also through a view", async () => {
      await seed(h.store);
      const planted = message(
        { id: "alice-conv", userId: "bob" },
        { id: "planted", embedding: [0, 1] },
      );
      await expectRejection(() => h.store.storeMessage(planted), "INTEGRITY");
      await expectRejection(
        () => h.store.storeMessages([message({ id: "alice-conv", userId: "alice" }), planted]),
        "INTEGRITY",
      );
      await expectRejection(() => h.store.forUser("bob").storeMessage(planted), "NOT_FOUND");
      expect(await h.store.getMessage("planted")).toBeNull();
      if (h.store.capabilities.semanticSearch) {
        const hits = await h.store.searchMessages({ embedding: [0, 1], userId: "alice" });
        expect(hits.map((x) => x.message.id)).toEqual(["alice-m1"]);
      }
      // Erasure by owner leaves nothing carrying the user behind.
      await h.store.deleteUserData("alice");
      expect((await h.store.listConversations()).items.map((x) => x.userId)).toEqual(["bob"]);
      expect((await allTraces(h.store)).map((t) => t.userId)).toEqual(["bob"]);
      expect(await h.store.getMessage("bob-m1")).not.toBeNull();
    });

    it("a trace without userId gets its conversation's owner, and every scoped read shows it alike", async () => {
      await seed(h.store);
      const c = await h.store.storeConversation(conversation({ id: "null-conv", userId: "alice" }));
      const m = await h.store.storeMessage(message(c, { id: "null-m", role: "assistant" }));
      const t = await h.store.storeTurnTrace(
        trace(m, { id: "null-t", userId: null, agentId: "agent-n" }),
      );
      expect(t.userId).toBe("alice");
      expect(await h.store.getTurnTraceByMessageId("null-m")).toEqual(t);
      const alice = h.store.forUser("alice");
      expect(await alice.getTurnTraceByMessageId("null-m")).toEqual(t);
      expect((await alice.getTurnTracesByAgentId("agent-n")).items).toEqual([t]);
      expect((await alice.queryTurnTraces({ conversationId: "null-conv" })).items).toEqual([t]);
      expect(
        (await h.store.queryTurnTraces({ userId: "alice", agentId: "agent-n" })).items,
      ).toEqual([t]);
      await expectRejection(() => h.store.storeTurnTrace({ ...t, userId: "bob" }), "INTEGRITY");
      expect(await h.store.forUser("bob").getTurnTraceByMessageId("null-m")).toBeNull();
    });

    it("trace hijack: a trace id of another user's message cannot be taken over, by the store or a view", async () => {
      await seed(h.store);
      const bobTrace = await h.store.getTurnTraceByMessageId("bob-m2");
      const hijack = trace(
        { id: "alice-m1", conversationId: "alice-conv", userId: "alice" },
        { id: "bob-t" },
      );
      await expectRejection(() => h.store.forUser("alice").storeTurnTrace(hijack), "NOT_FOUND");
      await expectRejection(() => h.store.storeTurnTrace(hijack), "INTEGRITY");
      expect(await h.store.getTurnTraceByMessageId("bob-m2")).toEqual(bobTrace);
      expect(await h.store.getTurnTraceByMessageId("alice-m1")).toBeNull();
      expect((await h.store.forUser("bob").queryTurnTraces()).items).toEqual([bobTrace]);
    });

    it("search oracle: a scoped search filters before ranking, so a closer foreign message hides nothing", async (ctx) => {
      requireCapabilities(h, ctx, "semanticSearch");
      await seed(h.store);
      // Bob's message is the closest to the probe; Alice must still get her best match.
      const hits = await h.store
        .forUser("alice")
        .searchMessages({ embedding: [1, 0.01], limit: 1 });
      expect(hits.map((x) => x.message.id)).toEqual(["alice-m1"]);
      const bob = await h.store.forUser("bob").searchMessages({ embedding: [0, 1], limit: 1 });
      expect(bob.map((x) => x.message.id)).toEqual(["bob-m1"]);
    });

    it("racing scoped creates of one new conversation id: exactly one user wins, the other gets NotFoundError", async () => {
      for (let round = 0; round < 20; round++) {
        const id = `race-${round}`;
        const results = await Promise.allSettled([
          h.store.forUser("alice").storeConversation(conversation({ id, userId: "alice" })),
          h.store.forUser("bob").storeConversation(conversation({ id, userId: "bob" })),
        ]);
        const won = results.filter((r) => r.status === "fulfilled");
        expect(won, `round ${round}`).toHaveLength(1);
        const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
        expect(lost.reason.code, `round ${round}`).toBe("NOT_FOUND");
        const owner = (won[0] as PromiseFulfilledResult<{ userId: string }>).value.userId;
        expect((await h.store.getConversation(id))?.userId).toBe(owner);
      }
      const plain = await Promise.allSettled([
        h.store.storeConversation(conversation({ id: "race-plain", userId: "alice" })),
        h.store.storeConversation(conversation({ id: "race-plain", userId: "bob" })),
      ]);
      expect(plain.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
      const reason = (plain.find((r) => r.status === "rejected") as PromiseRejectedResult).reason;
      expect(reason.code).toBe("INTEGRITY");
    });

    it("scoped aggregates agree with scoped trace queries, whatever userId the traces were given", async () => {
      await seed(h.store);
      const c = await h.store.storeConversation(conversation({ id: "agg", userId: "alice" }));
      for (const [i, userId] of [null, "alice", null].entries()) {
        const m = await h.store.storeMessage(message(c, { id: `agg-m${i}`, role: "assistant" }));
        await h.store.storeTurnTrace(trace(m, { id: `agg-t${i}`, userId, timestamp: T0 + 10 + i }));
      }
      for (const user of ["alice", "bob"]) {
        const view = h.store.forUser(user);
        const listed = (await view.queryTurnTraces()).items;
        const usage = await view.summarizeUsage(WINDOW);
        expect(
          usage.reduce((n, b) => n + b.turns, 0),
          user,
        ).toBe(listed.length);
        const unscoped = (await h.store.queryTurnTraces({ userId: user })).items;
        expect(listed).toEqual(unscoped);
        const convs = new Set(
          (await h.store.listConversations({ userId: user })).items.map((x) => x.id),
        );
        expect(listed.every((t) => convs.has(t.conversationId))).toBe(true);
      }
      expect((await h.store.forUser("alice").queryTurnTraces()).items).toHaveLength(4);
    });

    it("destructive calls through a view never reach another user's records", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      await seed(h.store);
      const alice = h.store.forUser("alice");
      expect(await alice.softDeleteConversation("bob-conv")).toBe(false);
      expect(await alice.softDeleteMessage("bob-m1")).toBe(false);
      expect(await alice.deleteMessage("bob-m1")).toBe(false);
      await h.store.softDeleteMessage("bob-m2");
      expect(await alice.restoreMessage("bob-m2")).toBe(false);
      expect(await alice.purgeDeleted({ before: Date.now() + 1 })).toEqual({
        conversations: 0,
        messages: 0,
        turnTraces: 0,
      });
      expect(await alice.purgeDeleted({ before: Date.now() + 1, userId: "bob" })).toEqual({
        conversations: 0,
        messages: 0,
        turnTraces: 0,
      });
      expect(await h.store.getMessage("bob-m1")).not.toBeNull();
      expect(await h.store.getMessage("bob-m2", { includeDeleted: true })).not.toBeNull();
      expect(await h.store.getConversation("bob-conv")).not.toBeNull();
      expect((await h.store.forUser("bob").purgeDeleted({ before: Date.now() + 1 })).messages).toBe(
        1,
      );
    });
  });
}
