import { LOOKUP_MESSAGE_TOOL, lookupMessage } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { allMessages } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, message, T0 } from "../fixtures.js";
import type { Harness } from "../harness.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LONG = `HEAD${"x".repeat(1200)}TAIL`;

/** The session API, compression defaults and the lookup tool. */
export function sessionSuite(h: Harness): void {
  describe("session API", () => {
    it("storeSessionMessages stores plain turns with generated ids and timestamps, creating the conversation", async () => {
      const before = Date.now();
      const stored = await h.store.storeSessionMessages(
        "sess",
        [
          { role: "user", content: "Where is my order?" },
          {
            role: "assistant",
            content: "Let me check.",
            toolCalls: [{ toolCallId: "call-1", toolName: "lookup", arguments: { id: 42 } }],
          },
          {
            role: "tool",
            content: '{"status":"shipped"}',
            toolCallId: "call-1",
            toolName: "lookup",
            toolArguments: { id: 42 },
          },
        ],
        { userId: "sess-user", agentId: "support", title: "Order" },
      );
      const after = Date.now();
      expect(stored.map((m) => [m.role, m.originalContent])).toEqual([
        ["user", "Where is my order?"],
        ["assistant", "Let me check."],
        ["tool", '{"status":"shipped"}'],
      ]);
      for (const m of stored) {
        expect(m.id).toMatch(UUID_V7);
        expect(m).toMatchObject({ conversationId: "sess", userId: "sess-user", deletedAt: null });
      }
      expect(new Set(stored.map((m) => m.id)).size).toBe(3);
      const times = stored.map((m) => m.timestamp);
      expect(times[0]).toBeGreaterThanOrEqual(before);
      expect(times[0]).toBeLessThanOrEqual(after);
      expect(times).toEqual([times[0], times[0]! + 1, times[0]! + 2]);
      expect(stored[1]!.toolCalls[0]).toEqual({
        toolCallId: "call-1",
        toolName: "lookup",
        arguments: { id: 42 },
        result: null,
      });
      expect(stored[2]!.toolArguments).toEqual({ id: 42 });
      expect(await allMessages(h.store, "sess")).toEqual(stored);
      const c = await h.store.getConversation("sess");
      expect(c).toMatchObject({
        userId: "sess-user",
        agentId: "support",
        title: "Order",
        status: "active",
      });
      expect(c!.lastActivityAt).toBe(times[2]);
    });

    it("later turns go after the newest message, even one in the future; the conversation is left as it is", async () => {
      const c = await h.store.storeConversation(
        conversation({ id: "sess", userId: "u", title: "kept" }),
      );
      const future = Date.now() + 3_600_000;
      const late = await h.store.storeMessage(message(c, { id: "late", timestamp: future }));
      const [m] = await h.store.storeSessionMessages("sess", [{ role: "user", content: "next" }], {
        userId: "u",
        title: "ignored",
      });
      expect(m!.timestamp).toBeGreaterThan(future);
      expect(await allMessages(h.store, "sess")).toEqual([late, m]);
      expect((await h.store.getConversation("sess"))?.title).toBe("kept");
    });

    it("a turn with an id is an upsert (a retried call stores nothing twice); no turns store nothing", async () => {
      const turns = [{ id: "turn-1", role: "user" as const, content: "hello" }];
      await h.store.storeSessionMessages("sess", turns, { userId: "u" });
      await h.store.storeSessionMessages("sess", turns, { userId: "u" });
      expect((await allMessages(h.store, "sess")).map((m) => m.id)).toEqual(["turn-1"]);
      expect(await h.store.storeSessionMessages("empty", [], { userId: "u" })).toEqual([]);
      expect(await h.store.getConversation("empty")).toBeNull();
    });

    it("rejects bad turns and options with a ValidationError before anything is stored", async () => {
      const bad: [unknown, unknown][] = [
        [[{ role: "user" }], { userId: "u" }],
        [[{ role: "robot", content: "x" }], { userId: "u" }],
        [[{ role: "user", content: "x", conversationId: "other" }], { userId: "u" }],
        [[{ role: "user", content: "x" }], {}],
        [[{ role: "user", content: "x" }], { userId: { $ne: null } }],
        [
          [
            { id: "a", role: "user", content: "x" },
            { id: "a", role: "user", content: "y" },
          ],
          { userId: "u" },
        ],
      ];
      for (const [turns, options] of bad) {
        await expectRejection(
          () => h.store.storeSessionMessages("sess", turns as never, options as never),
          "VALIDATION",
          JSON.stringify([turns, options]),
        );
      }
      expect(await h.store.getConversation("sess")).toBeNull();
    });

    it("another user's conversation is an IntegrityError (NotFoundError through a view)", async () => {
      await h.store.storeConversation(conversation({ id: "sess", userId: "owner" }));
      const turns = [{ role: "user" as const, content: "x" }];
      await expectRejection(
        () => h.store.storeSessionMessages("sess", turns, { userId: "intruder" }),
        "INTEGRITY",
      );
      await expectRejection(
        () =>
          h.store.forUser("intruder").storeSessionMessages("sess", turns, { userId: "intruder" }),
        "NOT_FOUND",
      );
      expect(await allMessages(h.store, "sess")).toEqual([]);
    });

    it("loadSessionMessages returns the whole transcript in order (past one page), compressed on request", async () => {
      const c = await h.store.storeConversation(conversation({ id: "big", userId: "u" }));
      const messages = Array.from({ length: 1205 }, (_, i) =>
        message(c, {
          id: `big-${String(i).padStart(4, "0")}`,
          timestamp: T0 + Math.floor(i / 3),
          ...(i === 1000 ? { role: "assistant" as const, originalContent: LONG } : {}),
        }),
      );
      const stored = await h.store.storeMessages(messages);
      await h.store.flagMessage("big-0002");
      const loaded = await h.store.loadSessionMessages("big");
      expect(loaded.map((m) => m.id)).toEqual(stored.map((m) => m.id));
      expect(loaded[1000]!.originalContent).toBe(LONG);
      const compressed = await h.store.loadSessionMessages("big", { compress: true });
      const text = compressed[1000]!.originalContent;
      expect(text.startsWith(LONG.slice(0, 200))).toBe(true);
      expect(text.endsWith(LONG.slice(-200))).toBe(true);
      expect(text).toContain(`${LOOKUP_MESSAGE_TOOL} tool with id "big-1000"`);
      expect(await h.store.loadSessionMessages("missing")).toEqual([]);
    });

    it("loadSessionMessages leaves soft-deleted messages out", async (ctx) => {
      requireCapabilities(h, ctx, "softDelete");
      const [a, b] = await h.store.storeSessionMessages(
        "sess",
        [
          { role: "user", content: "a" },
          { role: "user", content: "b" },
        ],
        { userId: "u" },
      );
      await h.store.softDeleteMessage(a!.id);
      expect(await h.store.loadSessionMessages("sess")).toEqual([b]);
    });
  });

  describe("compression defaults and the lookup tool", () => {
    async function seed() {
      const c = await h.store.storeConversation(conversation({ id: "cd", userId: "cd-user" }));
      return h.store.storeMessages([
        message(c, {
          id: "at-limit",
          role: "assistant",
          originalContent: "y".repeat(1000),
          timestamp: T0 + 1,
        }),
        message(c, { id: "over", role: "assistant", originalContent: LONG, timestamp: T0 + 2 }),
        message(c, {
          id: "tool",
          role: "tool",
          originalContent: LONG,
          toolCallId: "k",
          toolName: "t",
          timestamp: T0 + 3,
        }),
      ]);
    }

    it("compress: true or {} shortens assistant messages longer than 1000 characters to 200 + hint + 200", async () => {
      const stored = await seed();
      for (const compress of [true, {}] as const) {
        const [atLimit, over, tool] = await h.store.getImmediateContext("cd", 10, { compress });
        expect(atLimit).toEqual(stored[0]);
        expect(tool).toEqual(stored[2]);
        const hint = over!.originalContent.slice(200, -200);
        expect(over!.originalContent.slice(0, 200)).toBe(LONG.slice(0, 200));
        expect(over!.originalContent.slice(-200)).toBe(LONG.slice(-200));
        expect(hint).toContain(`call the ${LOOKUP_MESSAGE_TOOL} tool with id "over"`);
        expect(hint).toContain(`${LONG.length - 400} characters omitted`);
      }
      const custom = await h.store.getImmediateContext("cd", 10, { compress: { keepChars: 10 } });
      expect(custom[1]!.originalContent.startsWith(`${LONG.slice(0, 10)}\n`)).toBe(true);
      expect(await h.store.getImmediateContext("cd", 10, { compress: false })).toEqual(stored);
    });

    it("the lookup tool returns the full text of the user's own message, and nothing of anyone else's", async () => {
      await seed();
      expect(await lookupMessage(h.store, { id: "over" }, { userId: "cd-user" })).toEqual({
        found: true,
        id: "over",
        role: "assistant",
        content: LONG,
        timestamp: T0 + 2,
      });
      const foreign = await lookupMessage(h.store, { id: "over" }, { userId: "someone-else" });
      const missing = await lookupMessage(h.store, { id: "nope" }, { userId: "cd-user" });
      expect(foreign).toMatchObject({ found: false, id: "over" });
      expect(missing).toMatchObject({ found: false, id: "nope" });
      expect(
        await lookupMessage(h.store, { id: { $ne: null } }, { userId: "cd-user" }),
      ).toMatchObject({ found: false });
    });
  });
}
