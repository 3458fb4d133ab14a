import type { MessageStoreApi, TurnTrace } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { allTraces } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, fullTrace, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** `count` assistant messages in one new conversation. */
async function assistantMessages(store: MessageStoreApi, count: number) {
  const c = conversation();
  await store.storeConversation(c);
  return store.storeMessages(
    Array.from({ length: count }, (_, i) => message(c, { role: "assistant", timestamp: T0 + i })),
  );
}

const byId = (a: TurnTrace, b: TurnTrace) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * `storeTurnTraces`: several traces in one call, as consecutive `storeTurnTrace` calls would
 * store them. Whether the traces before a failing one stay stored is the adapter's choice (all
 * or nothing, or one by one), so the cases only check what holds either way.
 */
export function traceBatchSuite(h: Harness): void {
  describe("storeTurnTraces", () => {
    it("stores every trace as storeTurnTrace would, resolving in input order", async () => {
      const ms = await assistantMessages(h.store, 6);
      const batch = [
        fullTrace(ms[2]!, { id: "batch-c" }),
        trace(ms[0]!, { id: "batch-a", userId: null }),
        trace(ms[1]!, { id: "batch-b", agentId: "agent-2", timestamp: T0 + 5 }),
      ];
      const stored = await h.store.storeTurnTraces(batch);
      expect(stored.map((t) => t.id)).toEqual(["batch-c", "batch-a", "batch-b"]);
      // The same traces one by one, on other messages of the same conversation.
      for (const [i, input] of batch.entries()) {
        const m = ms[3 + i]!;
        const one = await h.store.storeTurnTrace({ ...input, id: `one-${i}`, messageId: m.id });
        expect(stored[i]).toEqual({ ...one, id: input.id, messageId: input.messageId });
      }
      for (const t of stored) expect(await h.store.getTurnTraceByMessageId(t.messageId)).toEqual(t);
    });

    it("an empty array resolves to [] and stores nothing", async () => {
      expect(await h.store.storeTurnTraces([])).toEqual([]);
      expect(await allTraces(h.store)).toEqual([]);
    });

    it("upserts: a trace stored before is replaced, new ones are added", async () => {
      const [m1, m2] = await assistantMessages(h.store, 2);
      const old = await h.store.storeTurnTrace(trace(m1!, { id: "up-1", totalTokens: 1 }));
      const stored = await h.store.storeTurnTraces([
        { ...old, totalTokens: 99, agentId: "agent-9" },
        trace(m2!, { id: "up-2" }),
      ]);
      expect(stored[0]).toEqual({ ...old, totalTokens: 99, agentId: "agent-9" });
      expect((await allTraces(h.store)).sort(byId)).toEqual([...stored].sort(byId));
    });

    it("validates the whole array first: one bad trace or the same id twice stores nothing (ValidationError)", async () => {
      const [m1, m2] = await assistantMessages(h.store, 2);
      const good = trace(m1!, { id: "v-1" });
      await expectRejection(
        () => h.store.storeTurnTraces([good, { ...trace(m2!), totalTokens: -1 }]),
        "VALIDATION",
      );
      await expectRejection(
        () => h.store.storeTurnTraces([good, trace(m2!, { id: "v-1" })]),
        "VALIDATION",
      );
      await expectRejection(
        () => h.store.storeTurnTraces("nope" as unknown as TurnTrace[]),
        "VALIDATION",
      );
      expect(await allTraces(h.store)).toEqual([]);
    });

    it("a trace breaking a rule rejects the call (IntegrityError); it and those after it are not stored", async () => {
      const [other] = await assistantMessages(h.store, 1);
      for (const what of ["message missing", "message of another conversation"]) {
        const [m1, m2, m3] = await assistantMessages(h.store, 3);
        const bad =
          what === "message missing"
            ? trace({ ...m2!, id: "no-such-message" })
            : trace({ ...other!, conversationId: m2!.conversationId });
        const after = trace(m3!);
        await expectRejection(
          () => h.store.storeTurnTraces([trace(m1!), bad, after]),
          "INTEGRITY",
          what,
        );
        const ids = (await allTraces(h.store)).map((t) => t.id);
        expect(ids, what).not.toContain(bad.id);
        expect(ids, what).not.toContain(after.id);
      }
    });

    it("two traces for one message, in the batch or against a stored one, are an IntegrityError", async () => {
      const [m1, m2] = await assistantMessages(h.store, 2);
      await expectRejection(
        () =>
          h.store.storeTurnTraces([trace(m1!, { id: "twice-a" }), trace(m1!, { id: "twice-b" })]),
        "INTEGRITY",
      );
      expect((await allTraces(h.store)).map((t) => t.id)).not.toContain("twice-b");
      const kept = await h.store.storeTurnTrace(trace(m2!, { id: "kept" }));
      await expectRejection(
        () => h.store.storeTurnTraces([trace(m2!, { id: "intruder" })]),
        "INTEGRITY",
      );
      expect(await h.store.getTurnTraceByMessageId(m2!.id)).toEqual(kept);
    });

    it("keeps the ownership rules: another user's userId is refused, null is filled", async () => {
      const [m1, m2] = await assistantMessages(h.store, 2);
      await expectRejection(
        () => h.store.storeTurnTraces([trace(m1!, { userId: "someone-else" })]),
        "INTEGRITY",
      );
      const [t] = await h.store.storeTurnTraces([trace(m2!, { userId: null })]);
      expect(t!.userId).toBe(m2!.userId);
      expect(await allTraces(h.store)).toEqual([t]);
    });

    it("a view stores only its own user's traces; another user's message reads as missing (NotFoundError)", async () => {
      const [mine] = await assistantMessages(h.store, 1);
      const [theirs] = await assistantMessages(h.store, 1);
      const view = h.store.forUser(mine!.userId);
      const [t] = await view.storeTurnTraces([trace(mine!, { id: "view-t" })]);
      expect(await h.store.getTurnTraceByMessageId(mine!.id)).toEqual(t);
      await expectRejection(() => view.storeTurnTraces([trace(theirs!)]), "NOT_FOUND");
      expect(await h.store.getTurnTraceByMessageId(theirs!.id)).toBeNull();
    });
  });
}
