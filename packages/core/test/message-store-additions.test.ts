import { describe, expect, it } from "vitest";
import {
  compressionHint,
  IntegrityError,
  type MessageStore,
  UnsupportedOperationError,
  ValidationError,
} from "../src/index.js";
import { type RecordingDriver, recordingStore } from "./support/recording-driver.js";
import { msg, seeded } from "./support/store-fixtures.js";

type Store = MessageStore<RecordingDriver>;

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("session API", () => {
  it("stores plain turns in one driver call that also creates the conversation", async () => {
    const store = recordingStore();
    const before = Date.now();
    const stored = await store.storeSessionMessages(
      "s1",
      [
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Hi!", toolCalls: [{ toolCallId: "k", toolName: "t" }] },
        { role: "tool", content: "{}", toolCallId: "k", toolName: "t", toolArguments: { q: 1 } },
      ],
      { userId: "u1", agentId: "a1", title: "First" },
    );
    expect(store.driver.ops).toEqual(["storeSessionMessages"]);
    const { request } = store.driver.calls[0]!;
    expect(request.now).toBeGreaterThanOrEqual(before);
    expect(request.conversation).toMatchObject({
      id: "s1",
      userId: "u1",
      agentId: "a1",
      title: "First",
      tenantId: null,
    });
    expect(stored.map((m) => m.originalContent)).toEqual(["Hello", "Hi!", "{}"]);
    for (const m of stored) {
      expect(m.id).toMatch(UUID_V7);
      expect(m).toMatchObject({ conversationId: "s1", userId: "u1", deletedAt: null });
    }
    expect(stored[0]!.timestamp).toBeGreaterThanOrEqual(before);
    expect(stored.map((m) => m.timestamp - stored[0]!.timestamp)).toEqual([0, 1, 2]);
    expect(stored[2]).toMatchObject({ toolArguments: { q: 1 }, toolCallId: "k" });
    expect(await store.loadSessionMessages("s1")).toEqual(stored);
  });

  it("timestamps go after the conversation's newest message, even one in the future", async () => {
    const store = await seeded();
    const future = Date.now() + 60_000;
    await store.storeMessage(msg("late", future));
    const [m] = await store.storeSessionMessages("c1", [{ role: "user", content: "x" }], {
      userId: "u1",
    });
    expect(m!.timestamp).toBe(future + 1);
  });

  it("keeps a given id (a retried call is an upsert) and rejects duplicates", async () => {
    const store = recordingStore();
    const turn = { id: "fixed", role: "user" as const, content: "x" };
    await store.storeSessionMessages("s", [turn], { userId: "u" });
    const [again] = await store.storeSessionMessages("s", [turn], { userId: "u" });
    expect(again!.id).toBe("fixed");
    await expect(
      store.storeSessionMessages("s", [turn, turn], { userId: "u" }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it("validates turns and options before any I/O; no turns is a no-op", async () => {
    const store = recordingStore();
    const bad: [unknown, unknown][] = [
      [[{ role: "user" }], { userId: "u" }],
      [[{ role: "robot", content: "x" }], { userId: "u" }],
      [[{ role: "user", content: "x", timestamp: 5 }], { userId: "u" }],
      [[{ role: "user", content: "x", originalContent: "y" }], { userId: "u" }],
      [[{ role: "user", content: "x" }], {}],
      [[{ role: "user", content: "x" }], { userId: "u", extra: 1 }],
    ];
    for (const [turns, options] of bad) {
      await expect(
        store.storeSessionMessages("s", turns as never, options as never),
      ).rejects.toBeInstanceOf(ValidationError);
    }
    expect(await store.storeSessionMessages("s", [], { userId: "u" })).toEqual([]);
    expect(store.driver.calls).toEqual([]);
  });

  it("loadSessionMessages walks every page and compresses on request", async () => {
    const store = await seeded();
    const long = "a".repeat(1500);
    const messages = Array.from({ length: 2500 }, (_, i) =>
      msg(
        `m${String(i).padStart(5, "0")}`,
        i,
        i === 7 ? { role: "assistant", originalContent: long } : {},
      ),
    );
    await store.storeMessages(messages);
    store.driver.calls.length = 0;
    const all = await store.loadSessionMessages("c1");
    expect(all.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    expect(store.driver.ops).toEqual(Array(3).fill("getMessagesByConversationId"));
    const compressed = await store.loadSessionMessages("c1", { compress: true });
    expect(compressed[7]!.originalContent).toBe(
      "a".repeat(200) + compressionHint("m00007", 1100) + "a".repeat(200),
    );
    expect(await store.loadSessionMessages("missing")).toEqual([]);
  });
});

describe("capabilities", () => {
  const none = () =>
    recordingStore({ capabilities: { softDelete: false, tenants: false, embeddingQueue: false } });

  it.each<[string, (s: Store) => Promise<unknown>]>([
    ["softDeleteConversation", (s) => s.softDeleteConversation("c1")],
    ["restoreConversation", (s) => s.restoreConversation("c1")],
    ["softDeleteMessage", (s) => s.softDeleteMessage("m")],
    ["restoreMessage", (s) => s.restoreMessage("m")],
    ["purgeDeleted", (s) => s.purgeDeleted({ before: 1 })],
    ["listPendingEmbeddings", (s) => s.listPendingEmbeddings()],
    ["setEmbeddings", (s) => s.setEmbeddings([])],
    ["storeMessage with deletedAt", (s) => s.storeMessage(msg("m", 1, { deletedAt: 5 }))],
    ["storeMessage with tenantId", (s) => s.storeMessage(msg("m", 1, { tenantId: "t" }))],
    [
      "storeConversation with tenantId",
      (s) => s.storeConversation({ id: "c", userId: "u", tenantId: "t" }),
    ],
    ["listConversations by tenant", (s) => s.listConversations({ tenantId: "t" })],
    ["queryTurnTraces by tenant", (s) => s.queryTurnTraces({ tenantId: "t" })],
    [
      "summarizeUsage by tenant",
      (s) => s.summarizeUsage({ since: 0, until: 1, bucket: "day", tenantId: "t" }),
    ],
    ["deleteUserData by tenant", (s) => s.deleteUserData("u", { tenantId: "t" })],
    ["forTenant", async (s) => s.forTenant("t")],
  ])("%s without its capability: UnsupportedOperationError, no driver call", async (_, call) => {
    const store = none();
    const error = await call(store).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedOperationError);
    expect((error as Error).message).toMatch(/^\[message-store\] \[memory\] /);
    expect(store.driver.calls).toEqual([]);
  });

  it("deleteMessage and includeDeleted need no capability", async () => {
    const store = none();
    await store.storeConversation({ id: "c1", userId: "u1" });
    expect(await store.deleteMessage("m")).toBe(false);
    expect(await store.getConversation("c1", { includeDeleted: true })).not.toBeNull();
  });
});

describe("soft delete plumbing", () => {
  it("stamps now, passes includeDeleted, and hides nothing it was asked to include", async () => {
    const store = await seeded();
    await store.storeMessage(msg("m1", 1));
    const before = Date.now();
    expect(await store.softDeleteConversation("c1")).toBe(true);
    const stamp: number = store.driver.calls.at(-1)!.request.deletedAt;
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(await store.getConversation("c1")).toBeNull();
    expect((await store.getConversation("c1", { includeDeleted: true }))?.deletedAt).toBe(stamp);
    expect((await store.getMessagesByConversationId("c1")).items).toEqual([]);
    const page = await store.getMessagesByConversationId("c1", { includeDeleted: true });
    expect(page.items.map((m) => m.deletedAt)).toEqual([stamp]);
    await expect(store.getMessage("m1", { includeDeleted: "yes" } as never)).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it("purgeDeleted passes its scope filter down", async () => {
    const store = await seeded();
    await store.purgeDeleted({ before: 10, tenantId: "t" });
    expect(store.driver.calls.at(-1)!.request).toEqual({ before: 10, scope: { tenantId: "t" } });
  });
});

describe("scoped views push their scope down", () => {
  async function twoUsers() {
    const store = recordingStore();
    for (const u of ["u1", "u2"]) {
      await store.storeConversation({ id: `${u}-c`, userId: u, createdAt: 1 });
      await store.storeMessage({
        ...msg(`${u}-m`, 2, { userId: u, conversationId: `${u}-c` }),
        embedding: u === "u1" ? [0, 1] : [1, 0],
      });
    }
    store.driver.calls.length = 0;
    return store;
  }

  it("search, traces, usage, lists and pending embeddings get the user as a filter", async () => {
    const store = await twoUsers();
    const view = store.forUser("u1");
    const hits = await view.searchMessages({ embedding: [1, 0], limit: 1 });
    expect(hits.map((h) => h.message.id)).toEqual(["u1-m"]);
    await view.queryTurnTraces({ agentId: "a" });
    await view.summarizeUsage({ since: 0, until: 5, bucket: "day" });
    await view.listConversations();
    await view.listPendingEmbeddings({ limit: 5 });
    expect(store.driver.calls.map((c) => c.request.scope)).toEqual(Array(5).fill({ userId: "u1" }));
    expect(store.driver.calls[3]!.request).toEqual({
      scope: { userId: "u1" },
      includeDeleted: false,
      page: { after: null, take: null },
    });
  });

  it("a contradicting filter answers empty without I/O", async () => {
    const store = await twoUsers();
    const view = store.forUser("u1").forTenant("t1");
    expect(await view.searchMessages({ embedding: [1, 0], userId: "u2" })).toEqual([]);
    expect(await view.queryTurnTraces({ tenantId: "t2" })).toEqual({ items: [], nextCursor: null });
    expect(await view.summarizeUsage({ since: 0, until: 1, bucket: "day", userId: "u2" })).toEqual(
      [],
    );
    expect(await view.deleteUserData("u2")).toEqual({
      conversations: 0,
      messages: 0,
      turnTraces: 0,
    });
    expect(await view.purgeDeleted({ before: 5, tenantId: "t2" })).toEqual({
      conversations: 0,
      messages: 0,
      turnTraces: 0,
    });
    expect(store.driver.calls).toEqual([]);
  });

  it("views compose; narrowing to another owner is a ValidationError", async () => {
    const store = recordingStore();
    const view = store.forTenant("t1").forUser("u1");
    expect(() => view.forUser("u2")).toThrow(ValidationError);
    expect(() => view.forTenant("t2")).toThrow(ValidationError);
    expect(() => view.forUser("u1").forTenant("t1")).not.toThrow();
    await view.getConversation("c");
    expect(store.driver.calls[0]!.request.scope).toEqual({ tenantId: "t1", userId: "u1" });
  });

  it("a write refused by the store for another owner's conversation is a NotFoundError", async () => {
    const store = await twoUsers();
    const error = await store
      .forUser("u1")
      .storeMessage(msg("x", 3, { conversationId: "u2-c", userId: "u1" }))
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("NotFoundError");
    expect((error as Error).message).toBe(
      '[message-store] [memory] conversation "u2-c" does not exist',
    );
    // Atomic: the driver refused the write itself, in the one call; nothing was read around it.
    expect(store.driver.ops).toEqual(["storeMessages"]);
  });

  it("an IntegrityError about the view's own data passes through", async () => {
    const store = await twoUsers();
    await store.softDeleteConversation("u1-c");
    const error = await store
      .forUser("u1")
      .storeConversation({ id: "u1-c", userId: "u1", createdAt: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntegrityError);
    expect((error as Error).message).toMatch(/deletedAt changes only through/);
  });

  it("without `tenants` too, the driver refuses another owner's write inside the write", async () => {
    const store = recordingStore({ capabilities: { tenants: false } });
    await store.storeConversation({ id: "c2", userId: "u2", createdAt: 1 });
    store.driver.calls.length = 0;
    const error = await store
      .forUser("u1")
      .storeMessage(msg("x", 3, { conversationId: "c2", userId: "u1" }))
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("NotFoundError");
    expect(store.driver.ops).toEqual(["storeMessages"]);
  });
});
