import type {
  MessageStoreApi,
  Page,
  TextSearchHit,
  TextSearchQueryInput,
} from "@message-store/core";
import { describe, expect, it, type TestContext } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { expectRejection } from "../expect-error.js";
import { conversation, message, T0 } from "../fixtures.js";
import type { Harness } from "../harness.js";

type Row = [id: string, content: string, at: number, extra?: Record<string, unknown>];

/**
 * Conversations "ts-a" … "ts-e" (activity: e > c > b > a > d). "refund" is in a's title and in
 * two of its messages (the newer flagged), in b's first message, in d's title; c has none; e
 * holds texts full of LIKE, regex and non-ASCII characters, and the control characters
 * PostgreSQL stores escaped, placed so that a match straddling an escape would be the newest.
 */
async function seed(store: MessageStoreApi): Promise<void> {
  const convs = {
    a: conversation({ id: "ts-a", userId: "u1", title: "Refund for order 4512" }),
    b: conversation({ id: "ts-b", userId: "u2" }),
    c: conversation({ id: "ts-c", userId: "u1", title: "Weather chat" }),
    d: conversation({ id: "ts-d", userId: "u2", title: "REFUNDS policy", updatedAt: T0 + 5 }),
    e: conversation({ id: "ts-e", userId: "u1", title: "Special characters" }),
  };
  const rows: Record<keyof typeof convs, Row[]> = {
    a: [
      ["ts-a1", "Where is my order?", 10],
      ["ts-a2", "Your REFUND is on its way", 20],
      ["ts-a3", "thanks, refund received", 30, { isFlagged: true }],
      ["ts-a4", "bye", 40],
    ],
    b: [
      ["ts-b1", "refund please", 50],
      ["ts-b2", "ok", 60],
    ],
    c: [["ts-c1", "is it sunny?", 70]],
    d: [],
    e: [
      ["ts-e0", "d\u0002x", 76],
      ["ts-e6", "c\u0001x", 77],
      ["ts-e1", "100% sure", 80],
      ["ts-e2", "a_b and x.y*z [abc] (?i) \\d ^$| +{2}", 81],
      ["ts-e3", "École ÉCOLE straße Σίσυφος 🙂", 82],
      ["ts-e4", "one\u0001two", 83],
      ["ts-e5", "b\u0000\u0002z", 84],
    ],
  };
  for (const [key, c] of Object.entries(convs)) {
    await store.storeConversation(c);
    for (const [id, originalContent, at, extra] of rows[key as keyof typeof convs]) {
      await store.storeMessage(message(c, { id, originalContent, timestamp: T0 + at, ...extra }));
    }
  }
}

/** `[conversation id, titleMatch, message id]` of each hit. */
const summary = (page: Page<TextSearchHit>) =>
  page.items.map((h) => [h.conversation.id, h.titleMatch, h.message?.id ?? null]);

/** The message ids found in conversation "ts-e" for `text`. */
async function inE(store: MessageStoreApi, text: string): Promise<string[]> {
  const page = await store.searchConversations({ text, userId: "u1", limit: 100 });
  return page.items.filter((h) => h.conversation.id === "ts-e").map((h) => h.message?.id ?? "-");
}

/** Every hit of `query`, page by page with `limit`. */
async function walk(store: MessageStoreApi, query: TextSearchQueryInput): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page: Page<TextSearchHit> = await store.searchConversations({ ...query, cursor });
    expect(page.items.length).toBeLessThanOrEqual(query.limit ?? 20);
    ids.push(...page.items.map((h) => h.conversation.id));
    cursor = page.nextCursor;
    if (cursor === null) break;
  }
  return ids;
}

/** searchConversations where `capabilities.textSearch`; UnsupportedOperationError elsewhere. */
export function textSearchSuite(h: Harness): void {
  describe("searchConversations (text search)", () => {
    const need = (ctx: TestContext) => requireCapabilities(h, ctx, "textSearch");

    it("rejects with UnsupportedOperationError (code UNSUPPORTED) when the capability is absent", async (ctx) => {
      if (h.store.capabilities.textSearch === true) ctx.skip(`${h.name} supports text search`);
      await expectRejection(() => h.store.searchConversations({ text: "x" }), "UNSUPPORTED");
      await expectRejection(
        () => h.store.forUser("u1").searchConversations({ text: "x" }),
        "UNSUPPORTED",
      );
    });

    it("finds titles and message contents, ASCII case-insensitively, most recent activity first, with the newest matching message (flagged included)", async (ctx) => {
      need(ctx);
      await seed(h.store);
      const page = await h.store.searchConversations({ text: "refund" });
      expect(summary(page)).toEqual([
        ["ts-b", false, "ts-b1"],
        ["ts-a", true, "ts-a3"],
        ["ts-d", true, null],
      ]);
      expect(page.nextCursor).toBeNull();
      expect(page.items[1]!.message!.isFlagged).toBe(true);
      const a = page.items[1]!.conversation;
      expect(a).toEqual(await h.store.getConversation("ts-a"));
      expect(page.items[1]!.message).toEqual(await h.store.getMessage("ts-a3"));
      expect(summary(await h.store.searchConversations({ text: "RefUND IS" }))).toEqual([
        ["ts-a", false, "ts-a2"],
      ]);
      expect(summary(await h.store.searchConversations({ text: "ORDER 45" }))).toEqual([
        ["ts-a", true, null],
      ]);
      expect(summary(await h.store.searchConversations({ text: "nowhere" }))).toEqual([]);
    });

    it("takes every other character literally: LIKE and regex metacharacters, non-ASCII letters, control characters", async (ctx) => {
      need(ctx);
      await seed(h.store);
      const cases: [string, string[]][] = [
        ["%", ["ts-e1"]],
        ["0% S", ["ts-e1"]],
        ["a%b", []],
        ["a_b", ["ts-e2"]],
        ["x_y", []],
        ["a.b", []],
        ["x.Y*z", ["ts-e2"]],
        ["[ABC]", ["ts-e2"]],
        ["(?i)", ["ts-e2"]],
        ["\\d", ["ts-e2"]],
        ["^$|", ["ts-e2"]],
        ["+{2}", ["ts-e2"]],
        ["ÉCOLE", ["ts-e3"]],
        ["école", []],
        ["STRAßE", ["ts-e3"]],
        ["STRASSE", []],
        ["σίσυφος", []],
        ["Σίσυφος", ["ts-e3"]],
        ["🙂", ["ts-e3"]],
        ["\u0001", ["ts-e4"]],
        ["\u0002x", ["ts-e0"]],
        ["\u0000\u0002Z", ["ts-e5"]],
        ["\u0000", ["ts-e5"]],
      ];
      const failures: string[] = [];
      for (const [text, expected] of cases) {
        const found = await inE(h.store, text);
        if (JSON.stringify(found) !== JSON.stringify(expected)) {
          failures.push(
            `${JSON.stringify(text)}: ${JSON.stringify(found)}, expected ${JSON.stringify(expected)}`,
          );
        }
      }
      expect(failures).toEqual([]);
    });

    it("filters by userId before matching; a view passes its user down", async (ctx) => {
      need(ctx);
      await seed(h.store);
      const ids = async (api: MessageStoreApi, query: TextSearchQueryInput) =>
        (await api.searchConversations(query)).items.map((x) => x.conversation.id);
      expect(await ids(h.store, { text: "refund", userId: "u2" })).toEqual(["ts-b", "ts-d"]);
      expect(await ids(h.store, { text: "refund", userId: "u1" })).toEqual(["ts-a"]);
      expect(await ids(h.store, { text: "refund", userId: "nobody" })).toEqual([]);
      expect(await ids(h.store.forUser("u2"), { text: "refund" })).toEqual(["ts-b", "ts-d"]);
      expect(await ids(h.store.forUser("u2"), { text: "refund", userId: "u1" })).toEqual([]);
    });

    it("filters by tenantId; forTenant passes its tenant down", async (ctx) => {
      need(ctx);
      requireCapabilities(h, ctx, "tenants");
      for (const [id, tenantId, at] of [
        ["tt-1", "t1", 1],
        ["tt-2", "t2", 2],
        ["tt-3", "t1", 3],
      ] as const) {
        await h.store.storeConversation(
          conversation({ id, userId: "u1", tenantId, title: "Tenant refund", updatedAt: T0 + at }),
        );
      }
      await h.store.storeConversation(conversation({ id: "tt-0", userId: "u1", title: "refund" }));
      const ids = async (api: MessageStoreApi, query: TextSearchQueryInput) =>
        (await api.searchConversations(query)).items.map((x) => x.conversation.id);
      expect(await ids(h.store, { text: "refund", tenantId: "t1" })).toEqual(["tt-3", "tt-1"]);
      expect(await ids(h.store.forTenant("t2"), { text: "REFUND" })).toEqual(["tt-2"]);
      expect(await ids(h.store.forTenant("t2"), { text: "refund", tenantId: "t1" })).toEqual([]);
    });

    it("pages with limit and cursors: every hit once, in order; 20 by default", async (ctx) => {
      need(ctx);
      await seed(h.store);
      expect(await walk(h.store, { text: "refund", limit: 1 })).toEqual(["ts-b", "ts-a", "ts-d"]);
      const bulk = Array.from({ length: 25 }, (_, i) =>
        conversation({
          id: `tp-${String(i).padStart(2, "0")}`,
          userId: "u9",
          updatedAt: T0 + (i % 4),
        }),
      );
      for (const c of bulk) {
        await h.store.storeConversation(c);
        await h.store.storeMessage(message(c, { originalContent: "bulk text", timestamp: T0 }));
      }
      const expected = bulk
        .map((c) => c.id)
        .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
        .sort((x, y) => (Number(y.slice(3)) % 4) - (Number(x.slice(3)) % 4));
      expect(await walk(h.store, { text: "BULK", limit: 7 })).toEqual(expected);
      const first = await h.store.searchConversations({ text: "bulk" });
      expect(first.items.length).toBe(20);
      expect(first.nextCursor).not.toBeNull();
    });

    it("leaves soft-deleted conversations and messages out unless includeDeleted", async (ctx) => {
      need(ctx);
      requireCapabilities(h, ctx, "softDelete");
      await seed(h.store);
      expect(await h.store.softDeleteMessage("ts-b1")).toBe(true);
      expect(await h.store.softDeleteConversation("ts-a")).toBe(true);
      expect(summary(await h.store.searchConversations({ text: "refund" }))).toEqual([
        ["ts-d", true, null],
      ]);
      expect(
        summary(await h.store.searchConversations({ text: "refund", includeDeleted: true })),
      ).toEqual([
        ["ts-b", false, "ts-b1"],
        ["ts-a", true, "ts-a3"],
        ["ts-d", true, null],
      ]);
      expect(await h.store.restoreConversation("ts-a")).toBe(true);
      expect(summary(await h.store.searchConversations({ text: "refund" }))).toEqual([
        ["ts-a", true, "ts-a3"],
        ["ts-d", true, null],
      ]);
    });

    it("sees upserts at once: a new title, changed text", async (ctx) => {
      need(ctx);
      await seed(h.store);
      const { lastActivityAt: _, ...c } = (await h.store.getConversation("ts-c"))!;
      await h.store.storeConversation({ ...c, title: "refund later" });
      await h.store.storeMessage({
        ...(await h.store.getMessage("ts-b1"))!,
        originalContent: "no",
      });
      expect(summary(await h.store.searchConversations({ text: "refund" }))).toEqual([
        ["ts-c", true, null],
        ["ts-a", true, "ts-a3"],
        ["ts-d", true, null],
      ]);
    });

    it("rejects invalid queries with ValidationError", async (ctx) => {
      need(ctx);
      await expectRejection(() => h.store.searchConversations({ text: "" }), "VALIDATION");
      await expectRejection(
        () => h.store.searchConversations({ text: "x", cursor: "not-a-cursor" }),
        "VALIDATION",
      );
      await expectRejection(
        () => h.store.searchConversations({ text: "x", userId: { $ne: null } as never }),
        "VALIDATION",
      );
    });
  });
}
