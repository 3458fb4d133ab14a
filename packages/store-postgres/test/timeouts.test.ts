import { ConnectionError, OutcomeUnknownError } from "@message-store/core";
import { TcpProxy } from "@message-store/test-servers";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { conversation, message, openStore, useDatabase, withClient } from "./helpers.js";

const db = useDatabase("ms_pg_timeouts");
/** The store's wait after a cancel request (CANCEL_GRACE_MS), and its margin on a busy machine. */
const GRACE_MS = 2_000;
const SLACK_MS = 1_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

async function store(extra: Parameters<typeof openStore>[1] = {}, url = db.url()) {
  const s = await openStore(url, extra);
  cleanup.push(() => s.close());
  return s;
}

async function proxy(): Promise<TcpProxy> {
  const p = await TcpProxy.start("127.0.0.1", Number(new URL(db.url()).port));
  cleanup.push(() => p.close());
  return p;
}

/** A second connection that holds a row or table lock until `release()`. */
async function lock(sql: string): Promise<{ release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: db.url() });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query(sql);
  const release = async () => {
    await holder.query("ROLLBACK").catch(() => {});
    await holder.end().catch(() => {});
  };
  cleanup.push(release);
  return { release };
}

async function messageCount(id: string): Promise<number> {
  const { rows } = await withClient(db.url(), (c) =>
    c.query<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE id = $1", [id]),
  );
  return rows[0]!.n;
}

/** Retries `call` until it resolves (a slot held by the backend reaper came back). */
async function untilAnswered(call: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await call().then(
      () => true,
      () => false,
    );
    if (ok) return;
    expect(Date.now(), "the slot never came back").toBeLessThan(deadline);
    await sleep(200);
  }
}

async function messageExists(id: string): Promise<boolean> {
  const { rows } = await withClient(db.url(), (c) =>
    c.query("SELECT 1 FROM messages WHERE id = $1", [id]),
  );
  return rows.length > 0;
}

/** The store's backends (and its cleanup connection's), as the server counts them. */
async function backends(): Promise<number> {
  const { rows } = await withClient(db.url(), (c) =>
    c.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'message-store%'",
    ),
  );
  return Number(rows[0]!.n);
}

async function timed<T>(promise: Promise<T>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

describe("query_timeout_ms: a call without an answer is cancelled on the server", () => {
  it("a write blocked by a lock rejects after query_timeout_ms, is cancelled, and never commits", async () => {
    const s = await store({ query_timeout_ms: 300, statement_timeout_ms: 0, pool_max: 1 });
    await s.storeConversation(conversation("locked"));
    const held = await lock("SELECT * FROM conversations WHERE id = 'locked' FOR UPDATE");
    const { error, ms } = await timed(s.storeMessage(message("m-late", "locked", 10)));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(
      /no answer within query_timeout_ms \(300 ms\): the statement was cancelled on the server; nothing was stored/,
    );
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(300 + GRACE_MS);
    await held.release();
    await sleep(200);
    expect(await messageExists("m-late")).toBe(false);
    // The cancelled statement's connection is reused: still one backend, and it works.
    await s.storeMessage(message("m-next", "locked", 20));
    expect(await backends()).toBe(1);
  });

  it("a read blocked by a table lock is cancelled the same way", async () => {
    const s = await store({ query_timeout_ms: 300, statement_timeout_ms: 0 });
    await s.storeConversation(conversation("r1"));
    const held = await lock("LOCK TABLE messages IN ACCESS EXCLUSIVE MODE");
    const { error } = await timed(s.getMessagesByConversationId("r1"));
    expect((error as Error).message).toMatch(
      /no answer within query_timeout_ms \(300 ms\): the statement was cancelled on the server$/,
    );
    await held.release();
    expect((await s.getMessagesByConversationId("r1")).items).toEqual([]);
  });

  it("a write whose answer arrives after query_timeout_ms but within the grace commits and resolves", async () => {
    const p = await proxy();
    const s = await store(
      { query_timeout_ms: 300, statement_timeout_ms: 0, pool_max: 1 },
      p.url(db.url()),
    );
    await s.storeConversation(conversation("slow"));
    // The statement runs at once; its answer reaches the store 800 ms later, after the deadline.
    // The cancel request finds the backend waiting for the commit and does nothing.
    p.delayReplies(800);
    const started = Date.now();
    await s.storeMessage(message("m-slow", "slow", 10));
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    p.delayReplies(0);
    expect(await messageExists("m-slow")).toBe(true);
    expect((await s.getMessage("m-slow"))?.id).toBe("m-slow");
  });

  for (const when of ["before", "after"] as const) {
    it(`a partition ${when} the statement reaches the server: OutcomeUnknownError after query_timeout_ms + grace, its slot held until the backend is gone, and a retry stores it once`, async () => {
      const p = await proxy();
      const s = await store(
        { query_timeout_ms: 400, statement_timeout_ms: 0, pool_max: 1, connect_timeout_ms: 500 },
        p.url(db.url()),
      );
      await s.storeConversation(conversation(`part-${when}`));
      if (when === "before") p.partition();
      else p.delayReplies(60_000); // the statement runs; its answer and everything after is held
      const write = timed(s.storeMessage(message(`m-${when}`, `part-${when}`, 10)));
      if (when === "after") {
        await sleep(150);
        p.partition();
      }
      const { error, ms } = await write;
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect((error as OutcomeUnknownError).code).toBe("OUTCOME_UNKNOWN");
      expect((error as Error).message).toMatch(
        /did not answer within query_timeout_ms \(400 ms\) \+ 2000 ms; the connection was dropped; the write may have been stored or not, and retrying it is safe/,
      );
      expect(ms).toBeGreaterThanOrEqual(400 + GRACE_MS - 50);
      expect(ms).toBeLessThan(400 + GRACE_MS + SLACK_MS);
      // The only slot is held while the server may still run the backend: the next call waits
      // for a connection and gives up after connect_timeout_ms.
      const blocked = await timed(s.getConversation(`part-${when}`));
      expect((blocked.error as Error).message).toMatch(/timeout exceeded when trying to connect/);
      p.delayReplies(0);
      p.heal();
      // Healed: the backend is terminated and the slot returns.
      await untilAnswered(() => s.getConversation(`part-${when}`));
      // With the Sync sent alongside the statement, the write ran (after) or may run (before,
      // delivered late) to its commit: whatever it did, the retry leaves exactly one copy.
      await s.storeMessage(message(`m-${when}`, `part-${when}`, 10));
      expect(await messageCount(`m-${when}`)).toBe(1);
      expect((await s.getMessagesByConversationId(`part-${when}`)).items.map((m) => m.id)).toEqual([
        `m-${when}`,
      ]);
      expect(await backends()).toBeLessThanOrEqual(2);
    });
  }

  it("the answer to the commit is lost (the proxy drops the server's replies): OutcomeUnknownError, the write is stored, a retry leaves one copy", async () => {
    const p = await proxy();
    const s = await store(
      { query_timeout_ms: 400, statement_timeout_ms: 0, pool_max: 1, connect_timeout_ms: 500 },
      p.url(db.url()),
    );
    await s.storeConversation(conversation("lost"));
    p.dropReplies();
    const { error } = await timed(s.storeMessage(message("m-lost", "lost", 10)));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    // The server committed: the write was stored although the store could not say so.
    expect(await messageCount("m-lost")).toBe(1);
    p.heal();
    await untilAnswered(() => s.getConversation("lost"));
    const retried = await s.storeMessage(message("m-lost", "lost", 10));
    expect(retried.id).toBe("m-lost");
    expect(await messageCount("m-lost")).toBe(1);
    expect((await s.getMessagesByConversationId("lost")).items).toHaveLength(1);
  });

  it("a read without an answer stays a plain ConnectionError", async () => {
    const p = await proxy();
    const s = await store(
      { query_timeout_ms: 300, statement_timeout_ms: 0, pool_max: 1 },
      p.url(db.url()),
    );
    await s.storeConversation(conversation("read-lost"));
    p.dropReplies();
    const { error } = await timed(s.getConversation("read-lost"));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as ConnectionError).code).toBe("CONNECTION");
    p.heal();
  });

  it("a write whose backend is terminated mid-statement says nothing was stored", async () => {
    const s = await store({ statement_timeout_ms: 0 });
    await s.storeConversation(conversation("term"));
    const held = await lock("SELECT * FROM conversations WHERE id = 'term' FOR UPDATE");
    const write = timed(s.storeMessage(message("m-term", "term", 10)));
    await sleep(300);
    await withClient(db.url(), (c) =>
      c.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'message-store' AND wait_event_type = 'Lock' AND datname = current_database()",
      ),
    );
    const { error } = await write;
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/nothing was stored/);
    await held.release();
    expect(await messageExists("m-term")).toBe(false);
  });
});

describe("statement_timeout_ms: the server decides a slow write", () => {
  it("a write the server's statement_timeout ends is a definite rejection, nothing stored", async () => {
    const s = await store({ statement_timeout_ms: 300, pool_max: 1 });
    await s.storeConversation(conversation("st"));
    const held = await lock("SELECT * FROM conversations WHERE id = 'st' FOR UPDATE");
    const { error } = await timed(s.storeMessage(message("m-st", "st", 10)));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).message).toMatch(
      /cancelled on the server, usually by statement_timeout_ms; nothing was stored/,
    );
    await held.release();
    await sleep(100);
    expect(await messageExists("m-st")).toBe(false);
    // The connection survived and is reused.
    await s.storeMessage(message("m-st2", "st", 11));
    expect(await backends()).toBe(1);
  });
});

describe("defaults and close()", () => {
  it("the store's own pool sets a 30 s statement_timeout, idle_in_transaction_session_timeout and (17+) transaction_timeout", async () => {
    const s: PostgresMessageStore = await store();
    const { rows } = await s.driver.pool.query(
      "SELECT current_setting('statement_timeout') AS st, current_setting('idle_in_transaction_session_timeout') AS it, current_setting('server_version_num')::int AS v, current_setting('transaction_timeout', true) AS tt",
    );
    expect({ st: rows[0].st, it: rows[0].it }).toEqual({ st: "30s", it: "30s" });
    // A second after statement_timeout, so the statement's own timeout (which keeps the
    // session) always fires first.
    expect(rows[0].tt).toBe(rows[0].v >= 170_000 ? "31s" : null);
    expect((s.driver.pool.options as pg.PoolConfig).query_timeout).toBeUndefined();
  });

  it("sends transaction_timeout to every new connection of a server that has it, and only to the first of one that does not", async () => {
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string })?.text;
      if (text?.includes("transaction_timeout")) sent.push(text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const s = await store({ pool_min: 0, pool_max: 3 });
      const clients = await Promise.all([1, 2, 3].map(() => s.driver.pool.connect()));
      const { rows } = await clients[0]!.query(
        "SELECT current_setting('server_version_num')::int AS v",
      );
      for (const c of clients) c.release();
      // Every connection the pool opened, the one of the migration at open included.
      expect(sent.length).toBe(rows[0].v >= 170_000 ? s.driver.pool.totalCount : 1);
    } finally {
      pg.Client.prototype.query = query;
    }
  });

  it("statement_timeout_ms: 0 sets no server-side timeout", async () => {
    const s = await store({ statement_timeout_ms: 0 });
    const { rows } = await s.driver.pool.query("SHOW statement_timeout");
    expect(rows[0].statement_timeout).toBe("0");
  });

  it("close() against a partitioned server resolves within 2 s and leaves no socket open", async () => {
    const p = await proxy();
    const s = await openStore(p.url(db.url()), { pool_min: 3, pool_max: 3 });
    const clients = await Promise.all([1, 2, 3].map(() => s.driver.pool.connect()));
    const sockets = clients.map((c) => c.connection.stream);
    for (const c of clients) c.release();
    p.partition();
    const { error, ms } = await timed(s.close());
    expect(error).toBeNull();
    expect(ms).toBeLessThan(GRACE_MS + SLACK_MS);
    // Without the bound, the sockets would stay half-closed, keeping the process alive.
    expect(sockets.map((socket) => socket.destroyed)).toEqual([true, true, true]);
    p.heal();
  });
});
