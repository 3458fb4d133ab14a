import { describeMessageStoreConformance } from "@message-store/conformance";
import { type MessageInput, MessageStore } from "@message-store/core";
import "@message-store/postgres";
import {
  createTestDatabase,
  type PgBouncerServer,
  type PostgresServer,
  pgbouncerBinary,
  startEmbeddedPostgres,
  startPgBouncer,
} from "@message-store/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverFinished } from "./support/backends.js";
import { conversation, message } from "./support/messages.js";
import { checkOutageCalls, codeOf, Workload } from "./support/workload.js";

/**
 * The PostgreSQL adapter behind PgBouncer in transaction mode (Debian's `pgbouncer`; `.ci/run`
 * installs it): the conformance suite, rejected writes that never commit, server connections
 * bounded by the pooler, and a server outage, all through the pooler.
 */
const available = pgbouncerBinary() !== null;
if (!available) {
  console.info("pgbouncer tier skipped: no pgbouncer binary (apt-get install pgbouncer)");
}

/** PgBouncer's `default_pool_size`: the server connections it may open for the test database. */
const POOL_SIZE = 4;
const SETTLE_BOUND_MS = 12_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: PostgresServer;
let bouncer: PgBouncerServer;
/** The test database, directly. */
let direct: string;
/** The test database through PgBouncer. */
let pooled: string;

const open = (extra: Record<string, unknown> = {}) =>
  MessageStore.initialize({
    storage: "postgres",
    dsn: pooled,
    transaction_pooler: true,
    connect_timeout_ms: 3_000,
    ...extra,
  });

/** Backends of the test database other than the asking one (PgBouncer's server connections). */
async function serverBackends(): Promise<number> {
  const client = new pg.Client({ connectionString: direct });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** Message ids in `schema`, read straight from the server. */
async function idsIn(schema: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: direct });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM ${schema}.messages`);
    return new Set(rows.map((r) => r.id));
  } finally {
    await client.end();
  }
}

describe.skipIf(!available)("postgres through PgBouncer, transaction mode", () => {
  beforeAll(async () => {
    server = await startEmbeddedPostgres({ fsync: true });
    direct = await createTestDatabase(server.url, "pgbouncer");
    bouncer = await startPgBouncer(direct, { poolMode: "transaction", poolSize: POOL_SIZE });
    pooled = bouncer.url;
  });
  afterAll(async () => {
    await bouncer?.stop();
    await server?.stop();
  });

  describeMessageStoreConformance({
    name: "postgres via pgbouncer",
    open: () => open({ schema: "conformance" }),
    reset: async () => {
      const client = new pg.Client({ connectionString: direct });
      await client.connect();
      try {
        await client.query(
          "TRUNCATE conformance.conversations, conformance.messages, conformance.turn_traces CASCADE",
        );
      } catch (error) {
        if (!["3F000", "42P01"].includes((error as { code?: string }).code ?? "")) throw error;
      } finally {
        await client.end();
      }
    },
  });

  it("the partitioned layout through the pooler: turns, batches, traces, and one id raced by 8 conversations", async () => {
    const store = await open({ schema: "parted", partitions: 4, pool_max: 8 });
    const ids = Array.from({ length: 8 }, (_, i) => `c-${i}`);
    for (const id of ids) await store.storeConversation(conversation(id));
    await store.storeMessages(ids.map((id, i) => message(`first-${i}`, id, 1)));
    await store.storeTurnTrace({
      id: "tr-1",
      messageId: "first-0",
      conversationId: "c-0",
      agentId: "a",
      timestamp: 2,
      totalTokens: 1,
      totalLatencyMs: 1,
    });
    const raced = await Promise.allSettled(
      ids.map((id) => store.storeMessage(message("raced", id, 3))),
    );
    expect(raced.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(raced.filter((r) => r.status === "rejected").map((r) => codeOf(r.reason))).toEqual(
      Array(7).fill("INTEGRITY"),
    );
    expect([...(await idsIn("parted"))].filter((id) => id === "raced")).toHaveLength(1);
    expect((await store.getImmediateContext("c-0", 5)).map((m) => m.id)[0]).toBe("first-0");
    expect((await store.getTurnTraceByMessageId("first-0"))?.id).toBe("tr-1");
    await store.close();
  });

  it("statement_timeout_ms with transaction_pooler is a ConfigurationError", async () => {
    await expect(open({ statement_timeout_ms: 1_000 })).rejects.toMatchObject({
      code: "CONFIGURATION",
      message: expect.stringMatching(/transaction-mode pooler/),
    });
  });

  it("a write rejected by query_timeout_ms is cancelled through the pooler and never stored", async () => {
    const store = await open({ schema: "timeouts", query_timeout_ms: 300, pool_max: 3 });
    await store.storeConversation(conversation("locked"));
    // A second connection, straight to the server, holds the conversation's row lock.
    const holder = new pg.Client({ connectionString: direct });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("SELECT 1 FROM timeouts.conversations WHERE id = 'locked' FOR UPDATE");
    const writes = Array.from({ length: 8 }, (_, i) =>
      store.storeMessage(message(`t-${i}`, "locked", 1_000 + i)).then(
        () => null,
        (e: unknown) => codeOf(e),
      ),
    );
    const codes = await Promise.all(writes);
    await holder.query("ROLLBACK");
    await holder.end();
    expect(codes).toEqual(Array(8).fill("CONNECTION"));
    await serverFinished(direct);
    const stored = await idsIn("timeouts");
    expect([...stored], "rejected writes that are stored").toEqual([]);
    // The pool is usable again: the cancelled statements' connections went back.
    await store.storeMessage(message("after", "locked", 5_000));
    expect((await store.getMessage("after"))?.id).toBe("after");
    await store.close();
  });

  it(`server connections stay within PgBouncer's pool (${POOL_SIZE}) under 400 calls from a pool of 20`, async () => {
    const store = await open({ schema: "load", pool_max: 20 });
    await store.storeConversation(conversation("busy"));
    let max = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        max = Math.max(max, await serverBackends());
        await sleep(20);
      }
    })();
    const calls = Array.from({ length: 400 }, (_, i) =>
      i % 2 === 0
        ? store.storeMessages([
            message(`l-${i}-a`, "busy", 10_000 + i * 2),
            message(`l-${i}-b`, "busy", 10_001 + i * 2),
          ])
        : store.getImmediateContext("busy", 20),
    );
    const settled = await Promise.allSettled(calls);
    sampling = false;
    await sampler;
    expect(settled.filter((s) => s.status === "rejected")).toEqual([]);
    const page = await store.getMessagesByConversationId("busy", { limit: 1000 });
    expect(page.items.length).toBe(400);
    expect(max, "server backends seen").toBeGreaterThan(0);
    expect(max, "server backends seen").toBeLessThanOrEqual(POOL_SIZE);
    await store.close();
  });

  it("a server killed under load: calls settle typed, acknowledged writes survive, the store recovers", async () => {
    const store = await open({ schema: "outage", pool_max: 6, query_timeout_ms: 5_000 });
    const conversations = ["o1", "o2", "o3"];
    for (const c of conversations) await store.storeConversation(conversation(c));
    const workload = new Workload(store, conversations, {
      workers: 8,
      prefix: "o-",
      checkReads: true,
    });
    workload.start();
    await sleep(1_500);
    const downAt = Date.now();
    await server.kill();
    await sleep(2_000);
    await server.start();
    await sleep(3_000);
    await workload.stop();
    checkOutageCalls(workload, downAt, SETTLE_BOUND_MS);
    // PgBouncer re-opens server connections; the same store instance works again.
    const again: MessageInput[] = Array.from({ length: 10 }, (_, i) =>
      message(`o-after-${i}`, "o1", 99_000 + i),
    );
    await store.storeMessages(again);
    const inDb = await idsIn("outage");
    const lost = [...workload.acknowledged].filter((id) => !inDb.has(id));
    expect(lost, "acknowledged writes missing after the restart").toEqual([]);
    expect(workload.acknowledged.size, "the workload wrote nothing").toBeGreaterThan(50);
    await store.close();
  });
});
