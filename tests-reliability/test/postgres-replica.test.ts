import { MessageStore } from "@message-store/core";
import {
  createTestDatabase,
  type PostgresServer,
  queryServer,
  type ReplicatedDatabase,
  startEmbeddedPostgres,
  startReplicatedDatabase,
  waitForReplay,
} from "@message-store/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezePostgres } from "./support/freeze.js";
import { conversation } from "./support/messages.js";

/*
 * The read replica (issue #29, item 5): a frozen standby must not slow every lagging read, and a
 * replica_dsn that is not a standby of the primary is refused at open. A real streaming standby of
 * an embedded PostgreSQL 18, frozen with SIGSTOP (every process of it: it accepts TCP
 * connections into its backlog and answers nothing, like a hung host).
 */
const QUERY_TIMEOUT_MS = 1_500;
const COOLDOWN_MS = 3_000;
/** What one lagging read may take once the breaker is open: the primary's answer. */
const FAST_MS = 400;

let pair: ReplicatedDatabase;
let standby: PostgresServer;
let other: PostgresServer;
let primaryDb: string;
let replicaDb: string;

const onServer = queryServer;
const caughtUp = () => waitForReplay(primaryDb, replicaDb);

async function timed<T>(
  call: () => Promise<T>,
): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await call();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

const ids = (page: { items: { id: string }[] }) => page.items.map((c) => c.id).sort();

beforeAll(async () => {
  other = await startEmbeddedPostgres();
  pair = await startReplicatedDatabase("replica");
  ({ standby, primaryDb, replicaDb } = pair);
});
afterAll(async () => {
  await pair?.stop();
  await other?.stop();
});

const open = (extra: Record<string, unknown> = {}) =>
  MessageStore.initialize({
    storage: "postgres",
    dsn: primaryDb,
    replica_dsn: replicaDb,
    query_timeout_ms: QUERY_TIMEOUT_MS,
    statement_timeout_ms: QUERY_TIMEOUT_MS - 500,
    connect_timeout_ms: QUERY_TIMEOUT_MS,
    replica_cooldown_ms: COOLDOWN_MS,
    ...extra,
  });

describe("postgres replica", () => {
  it("a frozen replica costs one read its timeout; later lagging reads skip it at once, and it is used again after the cool-down", async () => {
    const falling = await open();
    const strict = await open({ replica_fallback: "error" });
    try {
      await falling.storeConversation(conversation("rc1"));
      await caughtUp();
      expect(ids(await falling.listConversations())).toEqual(["rc1"]);
      expect(ids(await strict.listConversations())).toEqual(["rc1"]);

      const thaw = freezePostgres(standby.dataDir);
      let first: Awaited<ReturnType<typeof timed>>;
      const later: number[] = [];
      const rejections: number[] = [];
      try {
        await falling.storeConversation(conversation("rc2"));
        // The first read waits for the replica's timeout, then falls back to the primary.
        first = await timed(() => falling.listConversations());
        expect(ids(first.value as never)).toEqual(["rc1", "rc2"]);
        for (let i = 0; i < 20; i++) {
          const read = await timed(() => falling.getConversationsByUserId("u1"));
          expect(ids(read.value as never)).toEqual(["rc1", "rc2"]);
          later.push(read.ms);
        }
        const failed = await timed(() => strict.listConversations());
        expect(failed.error).toMatchObject({ code: "CONNECTION" });
        for (let i = 0; i < 5; i++) {
          const read = await timed(() => strict.listConversations());
          expect(read.error).toMatchObject({
            code: "CONNECTION",
            message: expect.stringMatching(/read replica could not answer/),
          });
          rejections.push(read.ms);
        }
      } finally {
        thaw();
      }
      console.info(
        `postgres replica frozen: first read ${first.ms.toFixed(0)} ms, the next 20 at most ${Math.max(...later).toFixed(0)} ms; with replica_fallback "error" at most ${Math.max(...rejections).toFixed(0)} ms`,
      );
      expect(first.ms).toBeGreaterThan(QUERY_TIMEOUT_MS);
      expect(Math.max(...later)).toBeLessThan(FAST_MS);
      expect(Math.max(...rejections)).toBeLessThan(FAST_MS);

      // Back: once the cool-down is over, a read starts a probe, and the replica serves again
      // (a paused replay makes it tell itself apart from the primary).
      await caughtUp();
      await onServer(replicaDb, "SELECT pg_wal_replay_pause()");
      try {
        await falling.storeConversation(conversation("rc3"));
        await new Promise((r) => setTimeout(r, COOLDOWN_MS));
        let served = false;
        for (let i = 0; i < 100 && !served; i++) {
          served = !ids(await falling.listConversations()).includes("rc3");
          if (!served) await new Promise((r) => setTimeout(r, 50));
        }
        expect(served, "the replica answers lagging reads again").toBe(true);
      } finally {
        await onServer(replicaDb, "SELECT pg_wal_replay_resume()");
      }
    } finally {
      await Promise.all([falling.close(), strict.close()]);
    }
  });

  it("a replica_dsn that is not a standby of this primary is a ConfigurationError at open", async () => {
    // The primary itself: not in recovery.
    await expect(open({ replica_dsn: primaryDb })).rejects.toMatchObject({
      code: "CONFIGURATION",
      message: expect.stringMatching(/not a standby: pg_is_in_recovery\(\) is false/),
    });
    // A standby, but of another cluster: lists would serve another database's conversations.
    const elsewhere = await createTestDatabase(other.url, "replica_other");
    await expect(open({ dsn: elsewhere })).rejects.toMatchObject({
      code: "CONFIGURATION",
      message: expect.stringMatching(/not a standby of this primary: its system_identifier/),
    });
    // The real standby opens.
    const store = await open();
    await store.close();
  });
});
