import type { CommandStartedEvent, Document } from "mongodb";
import { describe, expect, it } from "vitest";
import { COLLECTIONS, INDEXES, MongoMessageStore } from "../src/index.js";
import { conv, type Fixture, msg, openFixture, T0, traceOf, uniqueDbName } from "./helpers.js";

const COLLECTION_KEY = {
  [COLLECTIONS.conversations]: "conversations",
  [COLLECTIONS.messages]: "messages",
  [COLLECTIONS.turnTraces]: "turnTraces",
} as const;

/** The `find` commands `op` sends (filter, sort, collection). */
async function findsOf(f: Fixture, op: () => Promise<unknown>): Promise<Document[]> {
  const finds: Document[] = [];
  const listen = (e: CommandStartedEvent) => {
    if (e.commandName === "find") finds.push(e.command);
  };
  f.client.on("commandStarted", listen);
  try {
    await op();
  } finally {
    f.client.off("commandStarted", listen);
  }
  return finds;
}

/**
 * The declared index that serves a find as an index scan in its sort order: its keys are
 * `equality` (in any order) followed by the find's sort (same directions, or all reversed).
 * jongodb has no `explain`, so this checks the declared indexes against the queries actually sent.
 */
function servingIndex(find: Document, equality: string[]): string | undefined {
  const collection = COLLECTION_KEY[find.find as keyof typeof COLLECTION_KEY];
  for (const e of equality) expect(typeof find.filter[e], `${e} is an equality`).toBe("string");
  // The driver sends the sort as a Map (key order matters).
  const sort = [...((find.sort ?? new Map()) as Map<string, number>).entries()];
  return INDEXES[collection].find((index) => {
    const keys = Object.entries(index.key as Record<string, number>);
    const head = keys.slice(0, equality.length).map(([k]) => k);
    if (head.length !== equality.length || !equality.every((e) => head.includes(e))) return false;
    const tail = keys.slice(equality.length);
    if (tail.length < sort.length) return false;
    const sign = sort.length > 0 && tail[0]![1] === -sort[0]![1] ? -1 : 1;
    return sort.every(([k, d], i) => tail[i]![0] === k && tail[i]![1] === d * sign);
  })?.name;
}

describe("tenant- and user-scoped lists are index scans", () => {
  it("each scoped list sends a find that a declared index serves in order", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c", { userId: "u", tenantId: "t" }));
    await f.store.storeMessage(msg("m", "c", 1, { userId: "u" }));
    await f.store.storeTurnTrace(traceOf("tr", "m", "c", { userId: "u" }));
    const tenant = f.store.forTenant("t");
    const user = tenant.forUser("u");
    const cases: [string, () => Promise<unknown>, string[], string][] = [
      [
        "forTenant listConversations",
        () => tenant.listConversations(),
        ["tenantId"],
        "conversations_tenant_id",
      ],
      [
        "forUser listConversations",
        () => user.listConversations(),
        ["userId"],
        "conversations_user_id",
      ],
      [
        "getConversationsByUserId",
        () => user.getConversationsByUserId("u"),
        ["userId"],
        "conversations_user_activity",
      ],
      [
        "forTenant queryTurnTraces",
        () => tenant.queryTurnTraces(),
        ["tenantId"],
        "turn_traces_tenant_time",
      ],
      [
        "forUser queryTurnTraces",
        () => user.queryTurnTraces({ limit: 5 }),
        ["userId"],
        "turn_traces_user_time",
      ],
      [
        "forTenant listPendingEmbeddings",
        () => tenant.listPendingEmbeddings(),
        ["tenantId"],
        "messages_pending_tenant",
      ],
      [
        "forUser listPendingEmbeddings",
        () => f.store.forUser("u").listPendingEmbeddings(),
        ["userId"],
        "messages_pending_user",
      ],
    ];
    for (const [name, op, equality, index] of cases) {
      const [find] = await findsOf(f, op);
      expect(find, name).toBeDefined();
      expect(servingIndex(find!, equality), name).toBe(index);
    }
  });
});

describe("messages written before the embedding queue", () => {
  it("are queued by the next open, which then creates the queue's indexes", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c"));
    const vector = [0.1, 0.2];
    await f.store.storeMessages([
      msg("m1", "c", 1),
      msg("m2", "c", 2, { embedding: vector }),
      msg("m3", "c", 3, { role: "assistant" }),
    ]);
    // A store written before the queue: the same documents without pendingKey, in a database
    // whose collections have no queue indexes.
    const oldDb = uniqueDbName();
    for (const name of ["conversations", "messages"]) {
      const docs = await f.db.collection(name).find().toArray();
      await f.client
        .db(oldDb)
        .collection(name)
        .insertMany(docs.map(({ pendingKey, ...doc }) => doc));
    }
    const messages = f.client.db(oldDb).collection("messages");
    expect((await messages.listIndexes().toArray()).map((i) => i.name)).not.toContain(
      "messages_pending",
    );

    const reopened = await MongoMessageStore.open({
      storage: "mongodb",
      client: f.client,
      db: oldDb,
    });
    expect((await reopened.listPendingEmbeddings()).items.map((m) => m.id)).toEqual(["m1", "m3"]);
    const names = (await messages.listIndexes().toArray()).map((i) => i.name);
    expect(names).toContain("messages_pending");
    expect((await reopened.getMessage("m2"))?.embedding).toEqual(vector);
  });

  it("a store that already has the queue is not scanned again", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c"));
    await f.store.storeMessage(msg("m", "c", 1));
    await f.db
      .collection("messages")
      .updateOne({ _id: "m" as never }, { $unset: { pendingKey: "" } });
    const reopened = await MongoMessageStore.open({
      storage: "mongodb",
      client: f.client,
      db: f.dbName,
    });
    // The queue's index exists, so the open did not backfill: the hand-edited message stays out.
    expect((await reopened.listPendingEmbeddings()).items).toEqual([]);
  });
});

describe.each([
  { name: "replica set (transactions)", standalone: false },
  { name: "standalone (no transactions)", standalone: true },
])("soft delete, restore, purge and the queue: $name", ({ standalone }) => {
  it("a conversation's lifecycle keeps every rule", async () => {
    const { store } = await openFixture({ standalone });
    await store.storeConversation(conv("c"));
    await store.storeMessages([msg("m1", "c", 1), msg("m2", "c", 2)]);
    await store.storeTurnTrace(traceOf("t1", "m1", "c"));
    expect(await store.softDeleteMessage("m2")).toBe(true);
    expect(await store.softDeleteConversation("c")).toBe(true);
    await expect(store.storeMessage(msg("m3", "c", 3))).rejects.toMatchObject({
      code: "INTEGRITY",
    });
    await expect(store.restoreMessage("m1")).rejects.toMatchObject({ code: "INTEGRITY" });
    expect(await store.restoreConversation("c")).toBe(true);
    // m2 was deleted before the conversation, with an earlier stamp: it stays deleted.
    expect((await store.getMessagesByConversationId("c")).items.map((m) => m.id)).toEqual(["m1"]);
    expect(await store.getTurnTraceByMessageId("m1")).not.toBeNull();
    expect(await store.purgeDeleted({ before: Date.now() + 1_000 })).toEqual({
      conversations: 0,
      messages: 1,
      turnTraces: 0,
    });
    expect(await store.getMessage("m2", { includeDeleted: true })).toBeNull();
  });

  it("a batch passing back a stored embedding with a new text stores it cleared, and it is pending again", async () => {
    const { store } = await openFixture({ standalone });
    await store.storeConversation(conv("c"));
    await store.storeMessages([msg("m1", "c", 1), msg("m2", "c", 2)]);
    expect(
      await store.setEmbeddings([
        {
          id: "m1",
          originalContent: (await store.getMessage("m1"))!.originalContent,
          embedding: [1, 0],
        },
      ]),
    ).toBe(1);
    expect((await store.listPendingEmbeddings()).items.map((m) => m.id)).toEqual(["m2"]);
    const [m1, m3] = await store.storeMessages([
      msg("m1", "c", 1, { originalContent: "edited", embedding: [1, 0] }),
      msg("m3", "c", 3, { embedding: [0, 1] }),
    ]);
    expect(m1?.embedding).toBeNull();
    expect(m3?.embedding).toEqual([0, 1]);
    expect(await store.getMessage("m1")).toEqual(m1);
    expect((await store.listPendingEmbeddings()).items.map((m) => m.id)).toEqual(["m1", "m2"]);
    // The text moved on: an embedding of the old text is refused.
    expect(
      await store.setEmbeddings([{ id: "m1", originalContent: "hello", embedding: [1, 1] }]),
    ).toBe(0);
    expect((await store.getMessage("m1"))?.embedding).toBeNull();
    expect(T0).toBeGreaterThan(0);
  });
});
