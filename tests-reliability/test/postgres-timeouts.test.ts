import { type MessageInput, MessageStore } from "@message-store/core";
import {
  createTestDatabase,
  type PostgresServer,
  startEmbeddedPostgres,
  TcpProxy,
} from "@message-store/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendSampler, serverFinished, storedIds } from "./support/backends.js";
import { freezePostgres } from "./support/freeze.js";
import { conversation, message } from "./support/messages.js";
import { codeOf } from "./support/workload.js";

/** The store's wait for an answer after it asked the server to cancel (CANCEL_GRACE_MS). */
const GRACE_MS = 2_000;
/** Margin over a configured bound for timers on a busy 2-core machine. */
const SLACK_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: PostgresServer;
let url: string;

beforeAll(async () => {
  server = await startEmbeddedPostgres({ fsync: true });
  url = await createTestDatabase(server.url, "timeouts");
});
afterAll(async () => {
  await server?.stop();
});

/** A second connection holding a conversation's row lock until `release()`. */
async function lockConversation(id: string): Promise<{ release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT * FROM conversations WHERE id = $1 FOR UPDATE", [id]);
  return {
    async release() {
      await holder.query("ROLLBACK");
      await holder.end();
    },
  };
}

interface Outcome {
  ids: string[];
  /** Sends the same write again (for an outcome the store could not know). */
  retry: () => Promise<unknown>;
  ok: boolean;
  code: string | null;
  message: string;
  ms: number;
}

/** `retry`: the same write, sent again (default `call`; a store with more patient timeouts). */
async function attempt(
  ids: string[],
  call: () => Promise<unknown>,
  retry: () => Promise<unknown> = call,
): Promise<Outcome> {
  const started = Date.now();
  return call().then(
    () => ({ ids, retry, ok: true, code: null, message: "", ms: Date.now() - started }),
    (e: unknown) => ({
      ids,
      retry,
      ok: false,
      code: codeOf(e),
      message: String((e as Error).message),
      ms: Date.now() - started,
    }),
  );
}

/**
 * After the server has finished: a resolved write is present; a write rejected with
 * `ConnectionError` (the server's timeout, or never sent) is absent and says so; one rejected
 * with `OutcomeUnknownError` may be either, and the retry its message recommends leaves exactly
 * one copy. Returns what was stored before the retries.
 */
async function checkOutcomes(
  outcomes: Outcome[],
): Promise<{ stored: number; rejected: number; unknown: number; unknownStored: number }> {
  await serverFinished(url);
  const all = outcomes.flatMap((o) => o.ids);
  const stored = await storedIds(url, all);
  const rejected = outcomes.filter((o) => !o.ok);
  const definite = rejected.filter((o) => o.code === "CONNECTION");
  const unknown = rejected.filter((o) => o.code === "OUTCOME_UNKNOWN");
  expect(
    rejected.filter((o) => !definite.includes(o) && !unknown.includes(o)).map((o) => o.message),
    "rejections other than ConnectionError and OutcomeUnknownError",
  ).toEqual([]);
  const committedAfterRejection = definite.flatMap((o) => o.ids).filter((id) => stored.has(id));
  expect(committedAfterRejection, "writes rejected as definite that are stored").toEqual([]);
  for (const o of definite) expect(o.message).toMatch(/nothing was stored/);
  for (const o of unknown) {
    expect(o.message).toMatch(/may have been stored or not, and retrying it is safe/);
  }
  const lost = outcomes
    .filter((o) => o.ok)
    .flatMap((o) => o.ids)
    .filter((id) => !stored.has(id));
  expect(lost, "resolved writes that are missing").toEqual([]);
  const unknownStored = unknown.flatMap((o) => o.ids).filter((id) => stored.has(id)).length;
  await retryUnknown(unknown);
  return { stored: stored.size, rejected: rejected.length, unknown: unknown.length, unknownStored };
}

/** Retries each write whose outcome was unknown: then each of its ids is stored exactly once. */
async function retryUnknown(unknown: Outcome[]): Promise<void> {
  for (const o of unknown) await o.retry();
  const ids = unknown.flatMap((o) => o.ids);
  if (ids.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number; distinct_ids: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT id)::int AS distinct_ids FROM messages WHERE id = ANY($1::text[])",
      [ids],
    );
    expect(rows[0], "after the retries: every write once").toEqual({
      n: ids.length,
      distinct_ids: ids.length,
    });
  } finally {
    await client.end();
  }
}

describe("postgres timeouts", () => {
  it("a 20,000-message storeMessages with statement_timeout_ms 150: the server's timeout is a definite rejection, the batch wholly absent; a resolved one wholly present", async () => {
    const store = await MessageStore.initialize({
      storage: "postgres",
      dsn: url,
      statement_timeout_ms: 150,
      pool_max: 2,
    });
    const outcomes: Outcome[] = [];
    try {
      for (let round = 0; round < 4; round++) {
        const c = `big-${round}`;
        await store.storeConversation(conversation(c));
        const batch: MessageInput[] = Array.from({ length: 20_000 }, (_, i) =>
          message(`big-${round}-${i}`, c, 1_000 + i, 0, {
            originalContent: `${i}|${"y".repeat(100)}`,
          }),
        );
        const outcome = await attempt(
          batch.map((m) => m.id!),
          () => store.storeMessages(batch),
        );
        outcomes.push(outcome);
        const { stored } = await checkOutcomes([outcome]);
        expect([0, 20_000]).toContain(stored);
      }
    } finally {
      await store.close();
    }
    const summary = outcomes.map((o) =>
      o.ok ? `resolved in ${o.ms} ms` : `rejected after ${o.ms} ms`,
    );
    console.info(`postgres 20,000-message batch, statement_timeout_ms 150: ${summary.join("; ")}`);
    expect(outcomes.filter((o) => !o.ok).length, "no batch outlasted 150 ms").toBeGreaterThan(0);
    for (const o of outcomes.filter((o) => !o.ok)) {
      expect(o.code, "decided by the server, not the client").toBe("CONNECTION");
      expect(o.message).toMatch(/statement_timeout/);
      expect(o.ms).toBeLessThan(150 + SLACK_MS);
    }
  });

  it("pool_max 2, a locked conversation and 40 calls with statement_timeout_ms 1000: never more than 2 backends, and no rejected write commits", async () => {
    const store = await MessageStore.initialize({
      storage: "postgres",
      dsn: url,
      pool_max: 2,
      statement_timeout_ms: 1_000,
      connect_timeout_ms: 3_000,
    });
    await store.storeConversation(conversation("locked-40"));
    const lock = await lockConversation("locked-40");
    const sampler = new BackendSampler(url).start();
    try {
      const calls = Array.from({ length: 40 }, (_, i) =>
        attempt([`l40-${i}`], () =>
          store.storeMessage(message(`l40-${i}`, "locked-40", 1_000 + i)),
        ),
      );
      // Released midway, so that later calls succeed and the check sees both outcomes.
      await sleep(2_500);
      await lock.release();
      const outcomes = await Promise.all(calls);
      const counts = await sampler.stop();
      const { stored, rejected } = await checkOutcomes(outcomes);
      console.info(
        `postgres pool_max 2, 40 calls on a locked conversation: ${rejected} rejected (none stored), ${stored} stored; at most ${counts.maxPool} pool backends (+cleanup: ${counts.maxTotal}) over ${counts.samples} samples`,
      );
      expect(counts.samples).toBeGreaterThan(20);
      expect(counts.maxPool, "pool backends").toBeLessThanOrEqual(2);
      expect(counts.maxTotal, "pool and cleanup backends").toBeLessThanOrEqual(3);
      expect(rejected, "no call was rejected while the lock was held").toBeGreaterThan(0);
      expect(stored, "no call succeeded after the lock was released").toBeGreaterThan(0);
    } finally {
      await sampler.stop();
      await store.close();
    }
  });

  it("one call per second with a 3 s statement_timeout_ms on a locked conversation for 20 s: backends stay bounded, nothing commits", async () => {
    const store = await MessageStore.initialize({
      storage: "postgres",
      dsn: url,
      statement_timeout_ms: 3_000,
    });
    await store.storeConversation(conversation("locked-slow"));
    const lock = await lockConversation("locked-slow");
    const sampler = new BackendSampler(url, 100).start();
    const calls: Promise<Outcome>[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        calls.push(
          attempt([`ls-${i}`], () =>
            store.storeMessage(message(`ls-${i}`, "locked-slow", 1_000 + i)),
          ),
        );
        await sleep(1_000);
      }
      const outcomes = await Promise.all(calls);
      const counts = await sampler.stop();
      const { stored, rejected } = await checkOutcomes(outcomes);
      await lock.release();
      console.info(
        `postgres 1 call/s, 3 s timeout, 20 s: ${rejected} rejected, ${stored} stored; at most ${counts.maxPool} backends over ${counts.samples} samples`,
      );
      expect(rejected).toBe(20);
      expect(stored).toBe(0);
      // Each call holds a connection for 3 s: 3–4 calls at a time, never a growing number.
      expect(counts.maxPool).toBeLessThanOrEqual(4);
      const last = counts.samples > 0 ? sampler.samples.at(-1)! : null;
      expect(last?.pool ?? 0).toBeLessThanOrEqual(4);
    } finally {
      await sampler.stop();
      await store.close();
    }
  });

  it("server frozen (SIGSTOP) with writes in flight and during the freeze: each rejects in bounded time, sent ones with OutcomeUnknownError whose retry stores them once, backends stay within pool_max", async () => {
    const POOL_MAX = 4;
    const QUERY_TIMEOUT_MS = 1_000;
    const store = await MessageStore.initialize({
      storage: "postgres",
      dsn: url,
      pool_max: POOL_MAX,
      statement_timeout_ms: 900,
      query_timeout_ms: QUERY_TIMEOUT_MS,
      connect_timeout_ms: 1_000,
    });
    await store.storeConversation(conversation("frozen"));
    // A full pool, so no connection attempt is left queued in the frozen server's backlog.
    await Promise.all(Array.from({ length: POOL_MAX }, () => store.getConversation("frozen")));
    const sampler = new BackendSampler(url).start();
    await sleep(200);
    const calls: Promise<Outcome>[] = [];
    // Retries go through a store with the default timeouts (a 20,000-message batch may take
    // longer than this store's 900 ms on a busy machine), opened after the thaw so that its
    // connection is not counted with this store's backends.
    let patient: MessageStore | null = null;
    const single = (id: string) => {
      const m = message(id, "frozen", calls.length);
      calls.push(
        attempt(
          [id],
          () => store.storeMessage(m),
          () => patient!.storeMessage(m),
        ),
      );
    };
    // Two big batches, running on the server when it freezes.
    for (let i = 0; i < 2; i++) {
      const messages = Array.from({ length: 20_000 }, (_, j) =>
        message(`fz-${i}-${j}`, "frozen", 10_000 * i + j),
      );
      calls.push(
        attempt(
          messages.map((m) => m.id!),
          () => store.storeMessages(messages),
          () => patient!.storeMessages(messages),
        ),
      );
    }
    await sleep(400);
    const thaw = freezePostgres(server.dataDir);
    let outcomes: Outcome[];
    try {
      // Two writes sent to the frozen server on idle connections: they wait, unread, in its
      // sockets. Two more wait for a connection that never frees up.
      for (let i = 0; i < 4; i++) single(`fz-single-${i}`);
      outcomes = await Promise.all(calls);
    } finally {
      thaw();
    }
    const thawedAt = Date.now();
    // Recovered: once the abandoned backends are gone the slots return and calls succeed.
    for (;;) {
      const ok = await store.storeMessage(message("fz-after", "frozen", 99)).then(
        () => true,
        () => false,
      );
      if (ok) break;
      expect(Date.now() - thawedAt, "the store did not recover after the thaw").toBeLessThan(
        30_000,
      );
      await sleep(200);
    }
    const recoveredMs = Date.now() - thawedAt;
    const counts = await sampler.stop();
    patient = await MessageStore.initialize({ storage: "postgres", dsn: url });
    const { stored, rejected, unknown, unknownStored } = await checkOutcomes(outcomes).finally(() =>
      patient?.close(),
    );
    await store.close();
    console.info(
      `postgres frozen: ${outcomes.map((o) => (o.ok ? "ok" : `${o.code} ${o.ms} ms`)).join(", ")}; ${rejected} rejected (${unknown} outcome unknown, of whose ids ${unknownStored} were stored after the thaw), ${stored} ids stored before the retries; recovered ${recoveredMs} ms after the thaw; at most ${counts.maxPool} pool backends (+cleanup: ${counts.maxTotal})`,
    );
    expect(rejected).toBeGreaterThanOrEqual(4);
    // The writes sent into the frozen sockets cannot be decided by the store.
    expect(unknown, "writes sent to the frozen server").toBeGreaterThanOrEqual(2);
    for (const o of outcomes.filter((o) => !o.ok)) {
      // Sent: query_timeout_ms + the cancel grace; waiting for a slot: connect_timeout_ms.
      expect(o.ms).toBeLessThan(QUERY_TIMEOUT_MS + GRACE_MS + SLACK_MS);
    }
    expect(counts.maxPool).toBeLessThanOrEqual(POOL_MAX);
    expect(counts.maxTotal).toBeLessThanOrEqual(POOL_MAX + 1);
  });

  it("the answer to the commit lost (a TCP proxy drops the server's replies once the writes were sent): OutcomeUnknownError, the writes are stored, the retry leaves exactly one copy", async () => {
    const proxy = await TcpProxy.start("127.0.0.1", Number(new URL(url).port));
    const QUERY_TIMEOUT_MS = 1_000;
    const store = await MessageStore.initialize({
      storage: "postgres",
      dsn: proxy.url(url),
      pool_max: 4,
      statement_timeout_ms: 500,
      query_timeout_ms: QUERY_TIMEOUT_MS,
      connect_timeout_ms: 1_000,
    });
    try {
      await store.storeConversation(conversation("lost-answer"));
      await Promise.all(Array.from({ length: 4 }, () => store.getConversation("lost-answer")));
      proxy.dropReplies();
      const batch = Array.from({ length: 1_000 }, (_, i) =>
        message(`la-b-${i}`, "lost-answer", 100 + i),
      );
      const outcomes = await Promise.all([
        attempt(["la-1"], () => store.storeMessage(message("la-1", "lost-answer", 1))),
        attempt(["la-2"], () => store.storeMessage(message("la-2", "lost-answer", 2))),
        attempt(
          batch.map((m) => m.id!),
          () => store.storeMessages(batch),
        ),
      ]);
      expect(outcomes.map((o) => o.code)).toEqual(Array(3).fill("OUTCOME_UNKNOWN"));
      for (const o of outcomes) expect(o.ms).toBeLessThan(QUERY_TIMEOUT_MS + GRACE_MS + SLACK_MS);
      // The server committed every one of them: only the answers were lost.
      const before = await storedIds(
        url,
        outcomes.flatMap((o) => o.ids),
      );
      expect(before.size).toBe(1_002);
      proxy.heal();
      const { unknown } = await checkOutcomes(outcomes);
      expect(unknown).toBe(3);
      const transcript = await store.getMessagesByConversationId("lost-answer");
      expect(transcript.items.length).toBe(1_002);
      console.info(
        `postgres answer lost: ${outcomes.map((o) => `${o.code} after ${o.ms} ms`).join(", ")}; ${before.size} of 1,002 stored before the retry, 1,002 after it`,
      );
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
