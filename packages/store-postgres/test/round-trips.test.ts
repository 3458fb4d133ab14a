import { IntegrityError } from "@message-store/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresMessageStore } from "../src/index.js";
import { conversation, message, trace, useDatabase } from "./helpers.js";

/**
 * Issue #6: every contract call is one statement on one pooled connection; issue #26: in one
 * round trip. A client subclass counts every statement sent on any connection, and every Sync
 * and Flush message it sends: each is a point where the client waits for the server's answer,
 * so their number is the number of round trips (a write whose commit waited for a second
 * message, as before #26, counted two). The pool's `acquire` event counts checkouts.
 */

let statements = 0;
let roundTrips = 0;
class CountingClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    const wire = this.connection as unknown as { sync(): void; flush(): void };
    for (const method of ["sync", "flush"] as const) {
      const send = wire[method].bind(wire);
      wire[method] = () => {
        roundTrips++;
        send();
      };
    }
  }

  override query(...args: any[]): any {
    statements++;
    return (super.query as any)(...args);
  }
}

const db = useDatabase("ms_pg_round_trips");
let pool: pg.Pool;
let store: PostgresMessageStore;
let checkouts = 0;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url(), Client: CountingClient, max: 4 });
  // A pool's owner must listen for errors of its idle clients (pg emits them on the pool; with no
  // listener a backend ended by the server would crash the test worker). The counts are the test.
  pool.on("error", () => {});
  pool.on("acquire", () => checkouts++);
  store = await PostgresMessageStore.open({ storage: "postgres", pool });
  await store.storeConversation(conversation("c0"));
  await store.storeMessages([message("m0", "c0", 1), message("m00", "c0", 2)]);
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
});

async function count(
  call: () => Promise<unknown>,
): Promise<{ statements: number; checkouts: number; roundTrips: number }> {
  statements = 0;
  checkouts = 0;
  roundTrips = 0;
  await call().catch((e: unknown) => {
    if (!(e instanceof IntegrityError)) throw e;
  });
  return { statements, checkouts, roundTrips };
}

const ONE = { statements: 1, checkouts: 1, roundTrips: 1 };
const bytes = (text: string) => new TextEncoder().encode(text);
const json = (text: string) => ({ type: "json", data: bytes(text) });

describe("one round trip per contract call", () => {
  it("counts a write's deferred commit as a second round trip (the counter can fail)", async () => {
    // What the store did before #26: Execute with a row count makes pg send Flush, and the
    // commit waits for the Sync sent after the result.
    const client = await pool.connect();
    try {
      roundTrips = 0;
      const query = new pg.Query({ text: "SELECT 1", rows: 1_000 } as pg.QueryConfig);
      await new Promise<void>((resolve, reject) => {
        query.on("end", () => resolve());
        query.on("error", reject);
        client.query(query);
      });
      expect(roundTrips).toBe(2);
    } finally {
      client.release();
    }
  });

  const batch = Array.from({ length: 500 }, (_, i) => message(`b${i}`, "c1", 10 + (i % 7)));
  const calls: [string, () => Promise<unknown>][] = [
    ["storeConversation", () => store.storeConversation(conversation("c1"))],
    ["getConversation", () => store.getConversation("c1")],
    ["getConversationsByUserId", () => store.getConversationsByUserId("u1", { limit: 1 })],
    [
      "getConversationsByUserId (cursor)",
      async () => {
        const first = await store.getConversationsByUserId("u1", { limit: 1 });
        statements = 0;
        checkouts = 0;
        roundTrips = 0;
        return store.getConversationsByUserId("u1", { limit: 1, cursor: first.nextCursor });
      },
    ],
    ["listConversations", () => store.listConversations({ limit: 5 })],
    ["storeMessage", () => store.storeMessage(message("single", "c1", 5))],
    ["storeMessages (500, atomic)", () => store.storeMessages(batch)],
    ["storeMessages (integrity failure)", () => store.storeMessages([message("x", "nope", 1)])],
    ["getMessage", () => store.getMessage("b1")],
    ["flagMessage", () => store.flagMessage("b2")],
    ["getMessagesByConversationId", () => store.getMessagesByConversationId("c1", { limit: 50 })],
    ["getImmediateContext", () => store.getImmediateContext("c1", 20)],
    ["storeTurnTrace", () => store.storeTurnTrace(trace("t1", "b3", "c1"))],
    ["storeTurnTrace (integrity failure)", () => store.storeTurnTrace(trace("t2", "b3", "c1"))],
    [
      "storeTurnTraces (500)",
      () =>
        store.storeTurnTraces(batch.slice(100, 600).map((m) => trace(`tb-${m.id}`, m.id, "c1"))),
    ],
    [
      "storeTurnTraces (integrity failure)",
      () => store.storeTurnTraces([trace("t3", "b4", "c1"), trace("t4", "missing", "c1")]),
    ],
    ["getTurnTraceByMessageId", () => store.getTurnTraceByMessageId("b3")],
    ["getTurnTracesByAgentId", () => store.getTurnTracesByAgentId("agent-1", { since: 0 })],
    ["queryTurnTraces", () => store.queryTurnTraces({ toolName: "x", model: "y", limit: 3 })],
    ["summarizeUsage", () => store.summarizeUsage({ since: 0, until: 10_000, bucket: "hour" })],
    ["searchMessages", () => store.searchMessages({ embedding: [1, 2, 3] })],
    [
      "putCheckpoint (values, messages and a trace)",
      () =>
        store.putCheckpoint(
          {
            conversationId: "c1",
            id: "cp1",
            checkpoint: { type: "json", data: bytes("{}") },
            channelVersions: { a: "1", b: "1" },
            values: ["a", "b"].map((channel) => ({ channel, version: "1", value: json(channel) })),
          },
          {
            userId: "u1",
            messages: [{ id: "cp-m", role: "assistant", content: "hi" }],
            traces: [trace("cp-t", "cp-m", "c1")],
          },
        ),
    ],
    [
      "putCheckpoint (a new thread)",
      () =>
        store.putCheckpoint(
          { conversationId: "c-new", id: "cp1", checkpoint: json("{}") },
          { userId: "u1" },
        ),
    ],
    [
      "putCheckpointWrites",
      () =>
        store.putCheckpointWrites(
          {
            conversationId: "c1",
            checkpointId: "cp1",
            taskId: "task",
            writes: [0, 1, -1].map((idx) => ({ channel: "a", idx, value: json("w") })),
          },
          { userId: "u1" },
        ),
    ],
    ["getCheckpoint (latest)", () => store.getCheckpoint("c1")],
    ["getCheckpoint (by id)", () => store.getCheckpoint("c1", { id: "cp1" })],
    ["listCheckpoints", () => store.listCheckpoints({ userId: "u1", limit: 10 })],
    ["deleteCheckpoints", () => store.deleteCheckpoints("c-new")],
    ["deleteConversation", () => store.deleteConversation("c0")],
    ["deleteUserData", () => store.deleteUserData("u1")],
  ];
  for (const [name, call] of calls) {
    it(name, async () => {
      expect(await count(call)).toEqual(ONE);
    });
  }

  it("a view's read by id is one statement, for its own records and another user's alike", async () => {
    await store.storeConversation(conversation("v0"));
    await store.storeMessages([message("v-m0", "v0", 1), message("v-m1", "v0", 2)]);
    await store.storeTurnTrace(trace("t-view", "v-m1", "v0"));
    const owner = store.forUser("u1");
    const stranger = store.forUser("u2");
    // Each read resolves to something for its owner and to nothing (null, [], an empty page) for
    // a stranger, in one statement either way.
    const reads: [string, (view: typeof owner) => Promise<unknown>][] = [
      ["getConversation", (view) => view.getConversation("v0")],
      ["getMessage", (view) => view.getMessage("v-m0")],
      ["getImmediateContext", (view) => view.getImmediateContext("v0", 5)],
      ["getTurnTraceByMessageId", (view) => view.getTurnTraceByMessageId("v-m1")],
      ["getMessagesByConversationId", (view) => view.getMessagesByConversationId("v0")],
    ];
    const found = (r: unknown) =>
      r !== null && (Array.isArray(r) ? r : ((r as { items?: unknown[] }).items ?? [r])).length > 0;
    for (const [name, read] of reads) {
      let result: unknown;
      expect(await count(async () => (result = await read(owner))), name).toEqual(ONE);
      expect(found(result), name).toBe(true);
      expect(await count(async () => (result = await read(stranger))), name).toEqual(ONE);
      expect(found(result), name).toBe(false);
    }
  });

  it("a view's write by id of another user's record is one statement and changes nothing", async () => {
    await store.storeConversation(conversation("theirs", "u2"));
    await store.storeMessages([message("their-m", "theirs", 5, { userId: "u2" })]);
    await store.storeTurnTrace(trace("their-t", "their-m", "theirs", { userId: "u2" }));
    await store.softDeleteMessage("their-m");
    await store.storeMessages([message("their-live", "theirs", 6, { userId: "u2" })]);
    const before = await Promise.all([
      store.getConversation("theirs", { includeDeleted: true }),
      store.getMessagesByConversationId("theirs", { includeDeleted: true }),
      store.getTurnTraceByMessageId("their-m", { includeDeleted: true }),
    ]);
    const view = store.forUser("u1");
    const writes: [string, () => Promise<unknown>, unknown][] = [
      [
        "flagMessage",
        () => view.flagMessage("their-live").catch((e: Error) => e.name),
        "NotFoundError",
      ],
      ["softDeleteMessage", () => view.softDeleteMessage("their-live"), false],
      ["restoreMessage", () => view.restoreMessage("their-m"), false],
      ["deleteMessage", () => view.deleteMessage("their-live"), false],
      ["softDeleteConversation", () => view.softDeleteConversation("theirs"), false],
      ["restoreConversation", () => view.restoreConversation("theirs"), false],
      ["deleteConversation", () => view.deleteConversation("theirs"), false],
      [
        "setEmbeddings",
        () =>
          view.setEmbeddings([
            { id: "their-live", originalContent: "content of their-live", embedding: [1, 2] },
          ]),
        0,
      ],
    ];
    for (const [name, write, expected] of writes) {
      let result: unknown;
      expect(await count(async () => (result = await write())), name).toEqual(ONE);
      expect(result, name).toEqual(expected);
    }
    const after = await Promise.all([
      store.getConversation("theirs", { includeDeleted: true }),
      store.getMessagesByConversationId("theirs", { includeDeleted: true }),
      store.getTurnTraceByMessageId("their-m", { includeDeleted: true }),
    ]);
    expect(after).toEqual(before);
    // The same writes through the owner's view do change the records (so the counts above are
    // of refusals, not of calls that never reached their record).
    expect(await store.forUser("u2").softDeleteConversation("theirs")).toBe(true);
  });

  it("storeSessionMessages is one statement, also when it creates the conversation", async () => {
    const turns = [
      { role: "user" as const, content: "hi" },
      { role: "assistant" as const, content: "hello" },
    ];
    expect(await count(() => store.storeSessionMessages("s-new", turns, { userId: "u1" }))).toEqual(
      ONE,
    );
    expect(await count(() => store.storeSessionMessages("s-new", turns, { userId: "u1" }))).toEqual(
      ONE,
    );
    expect((await store.loadSessionMessages("s-new")).map((m) => m.originalContent)).toEqual([
      "hi",
      "hello",
      "hi",
      "hello",
    ]);
  });

  it("no round trip at all for empty work", async () => {
    const none = { statements: 0, checkouts: 0, roundTrips: 0 };
    expect(await count(() => store.storeMessages([]))).toEqual(none);
    expect(await count(() => store.getImmediateContext("c1", 0))).toEqual(none);
  });

  it("an integrity failure returns the connection to the pool instead of closing it", async () => {
    await store.storeConversation(conversation("c9"));
    const before = pool.totalCount;
    await expect(store.storeMessages([message("y", "missing", 1)])).rejects.toBeInstanceOf(
      IntegrityError,
    );
    expect(pool.totalCount).toBe(before);
    expect(pool.idleCount).toBe(before);
  });
});
