import { beforeAll, describe, expect, it } from "vitest";
import { conv, type Fixture, msg, openFixture, T0, traceOf } from "./helpers.js";

/**
 * Round trips per operation, counted with the driver's command monitoring (`commandStarted`).
 * Reads take one command; writes take at most two in the cases that matter (see the README
 * table for the rest). Listings use more than 101 rows so that a real server would need a
 * `getMore` without the adapter's `batchSize`.
 */
describe.each([
  { name: "replica set (transactions)", standalone: false },
  { name: "standalone (no transactions)", standalone: true },
])("round trips per operation: $name", ({ standalone }) => {
  let f: Fixture;
  let tx: boolean;
  const ROWS = 150;

  beforeAll(async () => {
    f = await openFixture({ standalone });
    tx = f.store.driver.usesTransactions;
    await f.store.storeConversation(conv("c-main"));
    await f.store.storeMessages(
      Array.from({ length: ROWS }, (_, i) => msg(`m-${String(i).padStart(3, "0")}`, "c-main", i)),
    );
    for (let i = 0; i < ROWS; i++) {
      await f.store.storeConversation(conv(`c-list-${i}`, { userId: "lister" }));
    }
    await f.store.storeTurnTrace(traceOf("t-main", "m-000", "c-main"));
  });

  it("detects the deployment", () => {
    if (!standalone) return; // the server under test may be a real standalone mongod
    expect(tx).toBe(false);
  });

  it("storeConversation: 1 for a new one and for a usual update", async () => {
    expect(await f.commandsOf(() => f.store.storeConversation(conv("c-new")))).toEqual(["update"]);
    const update = conv("c-new", { title: "renamed", updatedAt: T0 + 10 });
    expect(await f.commandsOf(() => f.store.storeConversation(update))).toEqual(["update"]);
  });

  it("storeConversation: 2 when updatedAt is older than the newest message", async () => {
    await f.store.storeConversation(conv("c-older"));
    await f.store.storeMessage(msg("m-older", "c-older", 100));
    const older = conv("c-older", { title: "renamed", updatedAt: T0 + 50 });
    const commands = await f.commandsOf(() => f.store.storeConversation(older));
    expect(commands).toEqual(["update", "findAndModify"]);
    expect((await f.store.getConversation("c-older"))?.lastActivityAt).toBe(T0 + 100);
  });

  it("storeConversation: 3 when updatedAt moves back from after the newest message to before it", async () => {
    await f.store.storeConversation(conv("c-back"));
    await f.store.storeMessage(msg("m-back", "c-back", 100));
    await f.store.storeConversation(conv("c-back", { updatedAt: T0 + 500 }));
    const back = conv("c-back", { updatedAt: T0 + 50 });
    const commands = await f.commandsOf(() => f.store.storeConversation(back));
    expect(commands).toEqual(["update", "findAndModify", "update"]);
    expect((await f.store.getConversation("c-back"))?.lastActivityAt).toBe(T0 + 100);
  });

  it("reads take 1", async () => {
    const reads: [string, () => Promise<unknown>][] = [
      ["getConversation", () => f.store.getConversation("c-main")],
      ["getConversationsByUserId", () => f.store.getConversationsByUserId("lister")],
      [
        "getConversationsByUserId page",
        () => f.store.getConversationsByUserId("lister", { limit: 120 }),
      ],
      ["listConversations", () => f.store.listConversations({ userId: "lister" })],
      ["getMessage", () => f.store.getMessage("m-001")],
      ["getMessagesByConversationId", () => f.store.getMessagesByConversationId("c-main")],
      [
        "getMessagesByConversationId page",
        () => f.store.getMessagesByConversationId("c-main", { limit: 120 }),
      ],
      ["getImmediateContext", () => f.store.getImmediateContext("c-main", 120)],
      ["getTurnTraceByMessageId", () => f.store.getTurnTraceByMessageId("m-000")],
      ["getTurnTracesByAgentId", () => f.store.getTurnTracesByAgentId("agent-1")],
      ["queryTurnTraces", () => f.store.queryTurnTraces({ model: "gpt", hasErrors: false })],
      ["summarizeUsage", () => f.store.summarizeUsage({ since: 0, until: T0 * 2, bucket: "day" })],
    ];
    for (const [name, read] of reads) {
      expect(await f.commandsOf(read), name).toEqual(["find"]);
    }
    const page = await f.store.getMessagesByConversationId("c-main", { limit: 120 });
    expect(page.items).toHaveLength(120);
    const next = { limit: 120, cursor: page.nextCursor };
    expect(await f.commandsOf(() => f.store.getMessagesByConversationId("c-main", next))).toEqual([
      "find",
    ]);
  });

  it("storeMessage: 3 for a new message at least as recent as the conversation's activity, 2 for an update", async () => {
    // The last update confirms the conversation live once the new message landed (see `confirmLive`).
    const commands = await f.commandsOf(() => f.store.storeMessage(msg("m-new", "c-main", 1_000)));
    expect(commands).toEqual(["findAndModify", "update", "update"]);
    const again = await f.commandsOf(() =>
      f.store.storeMessage(msg("m-new", "c-main", 1_000, { originalContent: "edited" })),
    );
    expect(again).toEqual(["findAndModify", "update"]);
  });

  it("storeMessage: 4 for a message older than the newest one, 5 for one older than updatedAt only", async () => {
    const older = await f.commandsOf(() => f.store.storeMessage(msg("m-old", "c-main", 5)));
    expect(older).toEqual(["findAndModify", "findAndModify", "update", "update"]);
    await f.store.storeConversation(conv("c-ahead", { updatedAt: T0 + 1_000 }));
    const between = await f.commandsOf(() =>
      f.store.storeMessage(msg("m-between", "c-ahead", 500)),
    );
    // The compare-and-set that moves lastMessageAt is an `update`, not a `findAndModify`.
    expect(between).toEqual(["findAndModify", "findAndModify", "update", "update", "update"]);
  });

  it("storeMessages: a batch of one is a storeMessage; a larger batch adds the transaction commit", async () => {
    const one = await f.commandsOf(() => f.store.storeMessages([msg("m-b1", "c-main", 2_000)]));
    expect(one).toEqual(["findAndModify", "update", "update"]);
    const batch = [msg("m-b2", "c-main", 2_001), msg("m-b3", "c-main", 2_002)];
    const many = await f.commandsOf(() => f.store.storeMessages(batch));
    expect(many).toEqual(
      tx
        ? ["findAndModify", "update", "commitTransaction", "update"]
        : ["find", "findAndModify", "insert", "update"],
    );
    // A batch re-storing a message it holds: without a transaction the insert collides, and the
    // batch is upserted.
    const again = [msg("m-b3", "c-main", 2_002), msg("m-b4", "c-main", 2_003)];
    const upserted = await f.commandsOf(() => f.store.storeMessages(again));
    expect(upserted).toEqual(
      tx
        ? ["findAndModify", "update", "commitTransaction", "update"]
        : ["find", "findAndModify", "insert", "update", "update"],
    );
  });

  it("flagMessage: 1", async () => {
    expect(await f.commandsOf(() => f.store.flagMessage("m-002"))).toEqual(["findAndModify"]);
  });

  it("storeTurnTrace: 2", async () => {
    const commands = await f.commandsOf(() =>
      f.store.storeTurnTrace(traceOf("t-new", "m-001", "c-main")),
    );
    expect(commands).toEqual(["find", "update"]);
  });

  it("storeTurnTraces: a batch is one find of its messages and one update, plus the commit with transactions", async () => {
    const batch = [traceOf("t-b1", "m-003", "c-main"), traceOf("t-b2", "m-004", "c-main")];
    const commands = await f.commandsOf(() => f.store.storeTurnTraces(batch));
    expect(commands).toEqual(tx ? ["find", "update", "commitTransaction"] : ["find", "update"]);
  });

  it("storeSessionMessages: two finds, the claim on the conversation and one update, plus the commit with transactions, then the confirmation", async () => {
    const commit = tx ? ["commitTransaction", "update"] : ["update"];
    const turns = [
      { id: "st-1", role: "user" as const, content: "a" },
      { id: "st-2", role: "assistant" as const, content: "b" },
    ];
    const created = await f.commandsOf(() =>
      f.store.storeSessionMessages("c-session", turns, { userId: "user-1" }),
    );
    expect(created).toEqual(["find", "find", "insert", "update", ...commit]);
    const next = [{ role: "user" as const, content: "c" }];
    const appended = await f.commandsOf(() =>
      f.store.storeSessionMessages("c-session", next, { userId: "user-1" }),
    );
    expect(appended).toEqual(["find", "find", "update", "update", ...commit]);
    // A retry of stored turns claims nothing: it only upserts them.
    const retried = await f.commandsOf(() =>
      f.store.storeSessionMessages("c-session", turns, { userId: "user-1" }),
    );
    expect(retried).toEqual(["find", "find", "update", ...(tx ? ["commitTransaction"] : [])]);
  });

  it("soft delete, restore, deleteMessage and purge: a fixed number each, plus the commit with transactions", async () => {
    const commit = tx ? ["commitTransaction"] : [];
    await f.store.storeConversation(conv("c-soft"));
    await f.store.storeMessages([msg("m-s1", "c-soft", 1), msg("m-s2", "c-soft", 2)]);
    await f.store.storeTurnTrace(traceOf("t-s1", "m-s1", "c-soft"));
    // A find of the message's conversation and the announcement of the stamp on it first.
    expect(await f.commandsOf(() => f.store.softDeleteMessage("m-s1"))).toEqual([
      "find",
      "update",
      "update",
      "update",
      ...commit,
    ]);
    // The restore confirms the conversation live afterwards.
    expect(await f.commandsOf(() => f.store.restoreMessage("m-s1"))).toEqual([
      "find",
      "update",
      "update",
      "update",
      ...commit,
      "update",
    ]);
    // A read of the conversation (its stamp floor), two of the newest stamp among its records,
    // then three updates, each committing on its own (no transaction on any deployment).
    expect(await f.commandsOf(() => f.store.softDeleteConversation("c-soft"))).toEqual([
      "find",
      "find",
      "find",
      "update",
      "update",
      "update",
    ]);
    expect(await f.commandsOf(() => f.store.restoreConversation("c-soft"))).toEqual([
      "findAndModify",
      "update",
      "update",
      ...commit,
    ]);
    expect(await f.commandsOf(() => f.store.deleteMessage("m-s2"))).toEqual([
      "delete",
      "delete",
      ...commit,
    ]);
    await f.store.softDeleteConversation("c-soft");
    expect(await f.commandsOf(() => f.store.purgeDeleted({ before: Date.now() + 1_000 }))).toEqual([
      "find",
      "find",
      "delete",
      "delete",
      "delete",
      ...commit,
    ]);
  });

  it("the embedding queue: one find per page, one update per batch of embeddings", async () => {
    const page = await f.store.listPendingEmbeddings({ limit: 120 });
    expect(page.items).toHaveLength(120);
    expect(await f.commandsOf(() => f.store.listPendingEmbeddings({ limit: 120 }))).toEqual([
      "find",
    ]);
    const updates = page.items.map((m) => ({
      id: m.id,
      originalContent: m.originalContent,
      embedding: [1, 0],
    }));
    expect(await f.commandsOf(() => f.store.setEmbeddings(updates))).toEqual(["update"]);
  });

  it("searchConversations: one find and one aggregation per 200 conversations walked", async () => {
    const search = () => f.store.searchConversations({ text: "no such text", userId: "lister" });
    expect((await search()).items).toEqual([]);
    expect(await f.commandsOf(search)).toEqual(["find", "aggregate"]);
  });

  it("deleteConversation: one find and three deletes (six with checkpoints, and three after the commit), plus the commit with transactions", async () => {
    const commit = tx ? ["commitTransaction"] : [];
    await f.store.storeConversation(conv("c-del"));
    await f.store.storeMessage(msg("m-del", "c-del", 1));
    const commands = await f.commandsOf(() => f.store.deleteConversation("c-del"));
    expect(commands).toEqual(["find", "delete", "delete", "delete", ...commit]);
    const missing = await f.commandsOf(() => f.store.deleteConversation("c-del"));
    expect(missing).toEqual(["find", ...commit]);
    const checkpoint = { type: "json", data: new Uint8Array([123, 125]) };
    await f.store.putCheckpoint(
      { conversationId: "c-thread", id: "cp", checkpoint },
      { userId: "u1" },
    );
    const thread = await f.commandsOf(() => f.store.deleteConversation("c-thread"));
    expect(thread).toEqual([
      "find",
      ...Array(6).fill("delete"),
      ...commit,
      "delete",
      "delete",
      "delete",
    ]);
  });

  it("deleteUserData: one find and three deletes, plus the commit with transactions", async () => {
    await f.store.storeConversation(conv("c-gone", { userId: "leaver" }));
    const commands = await f.commandsOf(() => f.store.deleteUserData("leaver"));
    expect(commands).toEqual(
      tx
        ? ["find", "delete", "delete", "delete", "commitTransaction"]
        : ["find", "delete", "delete", "delete"],
    );
  });
});
