import { type MessageStore, MessageStore as Store } from "@message-store/core";
import {
  createTestDatabase,
  type PostgresServer,
  startEmbeddedPostgres,
} from "@message-store/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezePostgres, settleWithin } from "./support/freeze.js";
import { conversation, message } from "./support/messages.js";
import { checkOutageCalls, codeOf, Workload } from "./support/workload.js";

/** Every call in flight at the outage must settle within this. */
const SETTLE_BOUND_MS = 15_000;
/** `query_timeout_ms` of the frozen-server tests. */
const FROZEN_QUERY_TIMEOUT_MS = 3_000;
/**
 * What a call to a frozen server may take: `query_timeout_ms`, the 2 s the store waits for the
 * outcome after its cancel request, and 3 s for timers on a busy 2-core machine.
 */
const FROZEN_BOUND_MS = FROZEN_QUERY_TIMEOUT_MS + 2_000 + 3_000;
/** The frozen-server tests' timeouts: the server's below the client's, as configuration requires. */
const FROZEN_TIMEOUTS = { statement_timeout_ms: 2_000, query_timeout_ms: FROZEN_QUERY_TIMEOUT_MS };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: PostgresServer;
let url: string;

beforeAll(async () => {
  server = await startEmbeddedPostgres({ fsync: true });
  url = await createTestDatabase(server.url, "outage");
});
afterAll(async () => {
  await server?.stop();
});

async function openStore(
  extra: { query_timeout_ms?: number; statement_timeout_ms?: number } = {},
): Promise<MessageStore> {
  return Store.initialize({
    storage: "postgres",
    dsn: url,
    pool_max: 6,
    connect_timeout_ms: 2_000,
    statement_timeout_ms: 10_000,
    ...extra,
  });
}

/** Message ids in the database, read with a fresh connection (not through the store). */
async function idsInDatabase(): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>("SELECT id FROM messages");
    return new Set(rows.map((r) => r.id));
  } finally {
    await client.end();
  }
}

/**
 * Runs a workload, takes the server down (`how`) in the middle, keeps the workload running
 * through the outage, restarts the server, and checks the promises of the issue.
 */
async function outage(how: "kill" | "stop", prefix: string): Promise<void> {
  const store = await openStore();
  const conversations = ["c1", "c2", "c3"].map((c) => `${prefix}${c}`);
  for (const c of conversations) await store.storeConversation(conversation(c));
  const workload = new Workload(store, conversations, { workers: 12, prefix, checkReads: true });
  workload.start();
  await sleep(1_500);

  const downAt = Date.now();
  if (how === "kill") await server.kill();
  else await server.stop({ keepData: true });
  const inFlight = workload.inFlightAt(downAt);
  await sleep(3_000);
  const restartAt = Date.now();
  await server.start();
  const upAt = Date.now();
  await sleep(1_000);
  await workload.stop();

  checkOutageCalls(workload, downAt, SETTLE_BOUND_MS);
  const failedDuringOutage = workload.calls.filter(
    (c) => !c.ok && c.start >= downAt && c.start < restartAt,
  );
  expect(failedDuringOutage.length, "no call failed during the outage").toBeGreaterThan(0);
  const okBefore = workload.calls.filter((c) => c.ok && c.end! < downAt).length;
  const okAfter = workload.calls.filter((c) => c.ok && c.start > upAt).length;
  // Once the server is back, the same instance serves every call: no reopen, no failed first calls.
  const failedAfter = workload.calls.filter((c) => !c.ok && c.start > upAt);
  expect
    .soft(
      failedAfter.slice(0, 5).map((c) => `${c.ids[0]}: ${codeOf(c.error)}`),
      `${failedAfter.length} calls failed after the restart`,
    )
    .toEqual([]);
  expect(okAfter, "the workload did nothing after the restart").toBeGreaterThan(50);
  expect(okBefore, "the workload did nothing before the outage").toBeGreaterThan(50);

  // The same instance works again, first time, without being reopened.
  const again = Array.from({ length: 40 }, (_, i) =>
    store.storeMessage(message(`${prefix}after-${i}`, conversations[i % 3]!, 99_000 + i)),
  );
  const results = await Promise.allSettled(again);
  expect(
    results
      .filter((r) => r.status === "rejected")
      .map((r) => codeOf((r as PromiseRejectedResult).reason)),
    "calls after the restart failed",
  ).toEqual([]);

  // Nothing acknowledged is lost: through the store and straight from the database.
  const acknowledged = [...workload.acknowledged];
  const viaStore = new Set<string>();
  for (const c of conversations) {
    for (const m of (await store.getMessagesByConversationId(c)).items) viaStore.add(m.id);
  }
  const inDb = await idsInDatabase();
  expect(
    acknowledged.filter((id) => !viaStore.has(id)),
    "acknowledged but missing (store)",
  ).toEqual([]);
  expect(
    acknowledged.filter((id) => !inDb.has(id)),
    "acknowledged but missing (database)",
  ).toEqual([]);
  await store.close();
  console.info(
    `postgres outage (${how}): ${workload.calls.length} calls, ${inFlight.length} in flight at the outage ` +
      `(slowest settled ${Math.max(...inFlight.map((c) => c.end! - downAt))} ms after it), ` +
      `${failedDuringOutage.length} ConnectionErrors during it, ${okBefore} ok before, ${okAfter} ok after, ` +
      `${acknowledged.length} acknowledged writes all present; restart took ${upAt - restartAt} ms`,
  );
}

describe("postgres outage", () => {
  it("server killed (SIGKILL) mid-workload: ConnectionError in bounded time, same store recovers, nothing acknowledged lost", async () => {
    await outage("kill", "k-");
  });

  it("server fast-stopped mid-workload: ConnectionError in bounded time, same store recovers, nothing acknowledged lost", async () => {
    await outage("stop", "s-");
  });

  it("server frozen (SIGSTOP, like a network partition): calls on open connections reject within query_timeout_ms + 2 s (reads ConnectionError, writes OutcomeUnknownError), and the same store recovers", async () => {
    const store = await openStore(FROZEN_TIMEOUTS);
    await store.storeConversation(conversation("f-c1"));
    // Warm the pool, so calls go to connections that are already open.
    await Promise.all(Array.from({ length: 12 }, () => store.getConversation("f-c1")));
    const thaw = freezePostgres(server.dataDir);
    let outcomes: { outcome: Awaited<ReturnType<typeof settleWithin<unknown>>>; ms: number }[];
    try {
      outcomes = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          const started = Date.now();
          const outcome = await settleWithin(
            i % 2
              ? store.getConversation("f-c1").then((): unknown => null)
              : store.storeMessage(message(`f-m${i}`, "f-c1", 1_000 + i)).then((): unknown => null),
            FROZEN_BOUND_MS + 10_000,
          );
          return { outcome, ms: Date.now() - started };
        }),
      );
    } finally {
      thaw();
    }
    try {
      const summary = outcomes.map(({ outcome: o }) =>
        o === "HUNG" ? "HUNG" : o.ok ? "ok" : codeOf(o.error),
      );
      const times = outcomes.map((o) => o.ms);
      console.info(`postgres frozen: ${summary.join(", ")} after ${times.join(", ")} ms`);
      expect(
        summary,
        "calls to a frozen server must reject (writes: outcome unknown), not hang",
      ).toEqual([
        "OUTCOME_UNKNOWN",
        "CONNECTION",
        "OUTCOME_UNKNOWN",
        "CONNECTION",
        "OUTCOME_UNKNOWN",
        "CONNECTION",
      ]);
      // Each call measured on its own: the configured wait plus the cancel grace.
      for (const ms of times) expect(ms).toBeLessThan(FROZEN_BOUND_MS);
      // Thawed: the same store works again, and retrying the writes leaves each stored once.
      await store.storeMessage(message("f-after", "f-c1", 9_000));
      for (const i of [0, 2, 4]) await store.storeMessage(message(`f-m${i}`, "f-c1", 1_000 + i));
      const transcript = await store.getMessagesByConversationId("f-c1");
      expect(transcript.items.map((m) => m.id).sort()).toEqual(["f-after", "f-m0", "f-m2", "f-m4"]);
    } finally {
      await store.close();
    }
  });

  it("close() while the server is frozen resolves within query_timeout_ms + 2 s (calls in flight) + 2 s (ending connections)", async () => {
    const store = await openStore(FROZEN_TIMEOUTS);
    await store.storeConversation(conversation("fc-c1"));
    await Promise.all(Array.from({ length: 6 }, () => store.getConversation("fc-c1")));
    const thaw = freezePostgres(server.dataDir);
    let closeMs: number;
    let calls: string[];
    try {
      const inFlight = Array.from({ length: 3 }, (_, i) =>
        store.storeMessage(message(`fc-m${i}`, "fc-c1", i)).then(
          () => "ok",
          (e: unknown) => codeOf(e),
        ),
      );
      await sleep(100);
      const started = Date.now();
      const closed = await settleWithin(store.close(), FROZEN_BOUND_MS + 30_000);
      closeMs = Date.now() - started;
      expect(closed !== "HUNG" && closed.ok, "close() rejected or hung").toBe(true);
      calls = await Promise.all(inFlight);
    } finally {
      thaw();
    }
    console.info(
      `postgres close() while frozen: ${closeMs} ms; calls in flight: ${calls.join(", ")}`,
    );
    expect(calls).toEqual(["OUTCOME_UNKNOWN", "OUTCOME_UNKNOWN", "OUTCOME_UNKNOWN"]);
    expect(closeMs).toBeLessThan(FROZEN_BOUND_MS + 2_000);
    // The writes' outcome was unknown: retried through a new store, each is stored once.
    const again = await openStore();
    try {
      for (let i = 0; i < 3; i++) await again.storeMessage(message(`fc-m${i}`, "fc-c1", i));
      const transcript = await again.getMessagesByConversationId("fc-c1");
      expect(transcript.items.map((m) => m.id)).toEqual(["fc-m0", "fc-m1", "fc-m2"]);
    } finally {
      await again.close();
    }
  });
});
