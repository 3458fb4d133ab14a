import { describe, expect, it } from "vitest";
import { allConversations, listAll } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, fullConversation, message, T0 } from "../fixtures.js";
import type { Harness } from "../harness.js";

const CONVERSATION_KEYS = [
  "agentId",
  "createdAt",
  "deletedAt",
  "description",
  "id",
  "lastActivityAt",
  "metadata",
  "status",
  "tags",
  "tenantId",
  "title",
  "updatedAt",
  "userId",
].sort();

/** Conversations: upsert, defaults, read-back, per-user listing, record isolation. */
export function conversationsSuite(h: Harness): void {
  describe("conversations", () => {
    it("a freshly reset store is empty", async () => {
      expect(await h.store.getConversationsByUserId("nobody")).toEqual({
        items: [],
        nextCursor: null,
      });
      expect(await h.store.queryTurnTraces()).toEqual({ items: [], nextCursor: null });
    });

    it("fills every default and resolves to exactly what getConversation returns", async () => {
      const before = Date.now();
      const stored = await h.store.storeConversation({ id: "c-defaults", userId: "u-1" });
      const after = Date.now();
      const read = await h.store.getConversation("c-defaults");
      expect(read).toEqual(stored);
      expect(Object.keys(read!).sort()).toEqual(CONVERSATION_KEYS);
      expect(read!.createdAt).toBeGreaterThanOrEqual(before);
      expect(read!.createdAt).toBeLessThanOrEqual(after);
      expect(read).toEqual({
        id: "c-defaults",
        userId: "u-1",
        tenantId: null,
        agentId: null,
        title: null,
        description: null,
        status: "active",
        createdAt: read!.createdAt,
        updatedAt: read!.createdAt,
        deletedAt: null,
        tags: [],
        metadata: {},
        lastActivityAt: read!.createdAt,
      });
    });

    it("updatedAt defaults to the given createdAt", async () => {
      const stored = await h.store.storeConversation({ id: "c", userId: "u", createdAt: 12_345 });
      expect(stored.updatedAt).toBe(12_345);
      expect(stored.lastActivityAt).toBe(12_345);
      expect(await h.store.getConversation("c")).toEqual(stored);
    });

    it("round-trips every field of a fully populated conversation", async () => {
      const input = fullConversation();
      const stored = await h.store.storeConversation(input);
      const expected = {
        tenantId: null,
        deletedAt: null,
        ...input,
        lastActivityAt: input.updatedAt,
      };
      expect(stored).toEqual(expected);
      expect(await h.store.getConversation(input.id)).toEqual(expected);
      expect(await allConversations(h.store, input.userId)).toEqual([expected]);
    });

    it("an upsert replaces the whole record (omitted fields go back to their defaults)", async () => {
      const full = fullConversation();
      await h.store.storeConversation(full);
      const replaced = await h.store.storeConversation({
        id: full.id,
        userId: full.userId,
        createdAt: T0,
      });
      const expected = {
        id: full.id,
        userId: full.userId,
        tenantId: null,
        agentId: null,
        title: null,
        description: null,
        status: "active",
        createdAt: T0,
        updatedAt: T0,
        deletedAt: null,
        tags: [],
        metadata: {},
        lastActivityAt: T0,
      };
      expect(replaced).toEqual(expected);
      expect(await h.store.getConversation(full.id)).toEqual(expected);
      expect(await allConversations(h.store, full.userId)).toEqual([expected]);
    });

    it("an upsert with another userId is an IntegrityError: a conversation's owner never changes", async () => {
      const c = conversation({ userId: "u-old" });
      const stored = await h.store.storeConversation(c);
      await h.store.storeMessage(message(c));
      await expectRejection(
        () => h.store.storeConversation({ ...c, userId: "u-new", title: "taken" }),
        "INTEGRITY",
      );
      expect(await h.store.getConversation(c.id)).toEqual({
        ...stored,
        lastActivityAt: T0 + 1_000,
      });
      expect(await allConversations(h.store, "u-new")).toEqual([]);
      expect((await allConversations(h.store, "u-old")).map((x) => x.id)).toEqual([c.id]);
    });

    it("getConversation of an unknown id resolves to null", async () => {
      await h.store.storeConversation(conversation());
      expect(await h.store.getConversation("no-such-conversation")).toBeNull();
    });

    it("getConversationsByUserId of an unknown user is an empty page", async () => {
      await h.store.storeConversation(conversation({ userId: "someone" }));
      expect(await h.store.getConversationsByUserId("someone-else")).toEqual({
        items: [],
        nextCursor: null,
      });
    });

    it("listConversations returns every conversation of every user, as getConversation returns it", async () => {
      const cs = [
        conversation({ userId: "u-1" }),
        fullConversation({ userId: "u-2" }),
        conversation({ userId: "u-1" }),
      ];
      for (const c of cs) await h.store.storeConversation(c);
      await h.store.storeMessage(message(cs[0]!, { timestamp: T0 + 50 }));
      const listed = await listAll(h.store);
      expect(listed.map((c) => c.id).sort()).toEqual(cs.map((c) => c.id).sort());
      for (const c of listed) expect(await h.store.getConversation(c.id)).toEqual(c);
      expect((await listAll(h.store, "u-1")).map((c) => c.id).sort()).toEqual(
        [cs[0]!.id, cs[2]!.id].sort(),
      );
      expect(await listAll(h.store, "nobody")).toEqual([]);
    });

    it("lists only the conversations of the given user", async () => {
      const mine = [conversation({ userId: "me" }), conversation({ userId: "me" })];
      const theirs = conversation({ userId: "them" });
      for (const c of [...mine, theirs]) await h.store.storeConversation(c);
      const listed = await allConversations(h.store, "me");
      expect(listed.map((c) => c.id).sort()).toEqual(mine.map((c) => c.id).sort());
      expect(listed.every((c) => c.userId === "me")).toBe(true);
    });

    it("ids are case-sensitive and compared exactly", async () => {
      await h.store.storeConversation(conversation({ id: "Case", userId: "u", title: "upper" }));
      await h.store.storeConversation(conversation({ id: "case", userId: "u", title: "lower" }));
      await h.store.storeConversation(conversation({ id: "case ", userId: "u", title: "space" }));
      expect((await h.store.getConversation("Case"))?.title).toBe("upper");
      expect((await h.store.getConversation("case"))?.title).toBe("lower");
      expect((await h.store.getConversation("case "))?.title).toBe("space");
      expect(await h.store.getConversation("CASE")).toBeNull();
      expect(await allConversations(h.store, "U")).toEqual([]);
    });

    it("records are copies: mutating inputs or results afterwards changes nothing stored", async () => {
      const input = fullConversation();
      const stored = await h.store.storeConversation(input);
      const snapshot = structuredClone(stored);
      (input.tags as string[]).push("mutated-input");
      (input.metadata as any).nested.deep.push("mutated-input");
      stored.tags.push("mutated-result");
      (stored.metadata as any).channel = "mutated-result";
      const read = await h.store.getConversation(input.id);
      expect(read).toEqual(snapshot);
      (read!.metadata as any).nested = null;
      expect(await h.store.getConversation(input.id)).toEqual(snapshot);
      const [listed] = await allConversations(h.store, input.userId);
      listed!.tags.length = 0;
      expect(await h.store.getConversation(input.id)).toEqual(snapshot);
    });
  });
}
