import { MessageStore } from "@message-store/core";
import {
  builtInServersSupported,
  messageInput,
  type PostgresServer,
  queryServer,
  type ReplicatedDatabase,
  startReplicatedDatabase,
  traceInput,
  waitForReplay,
} from "@message-store/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "../src/index.js";

/**
 * Reads that may lag go to a real streaming standby (embedded PostgreSQL 18, copied from its
 * primary, streaming its WAL); everything else reads the primary. The standby's replay is paused
 * to make it lag on purpose, and stopped to make it disappear.
 */
const supported = builtInServersSupported();
if (!supported) console.info("replica tests skipped: the built-in PostgreSQL needs Linux x64");

let pair: ReplicatedDatabase;
let standby: PostgresServer;
let primaryDb: string;
let replicaDb: string;

const onServer = queryServer;
const caughtUp = () => waitForReplay(primaryDb, replicaDb);

const ids = (page: { items: { id: string }[] }) => page.items.map((c) => c.id).sort();

describe.skipIf(!supported)("read replica", () => {
  beforeAll(async () => {
    pair = await startReplicatedDatabase("replica");
    ({ standby, primaryDb, replicaDb } = pair);
  });
  afterAll(async () => {
    await pair?.stop();
  });

  const open = (extra: Record<string, unknown> = {}) =>
    MessageStore.initialize({
      storage: "postgres",
      dsn: primaryDb,
      replica_dsn: replicaDb,
      connect_timeout_ms: 2_000,
      ...extra,
    });

  it("conversation lists, traces, usage and search read the replica; context, transcripts and ids read the primary", async () => {
    const store = await open();
    await store.storeConversation({ id: "c1", userId: "u1", agentId: "a1" });
    await store.storeMessage(messageInput("m1", "c1", 1_000, { embedding: [1, 0] }));
    await store.storeTurnTrace(traceInput("t1", "m1", "c1", 1_000));
    await caughtUp();
    expect(
      (
        await onServer<{ status: string }>(
          primaryDb,
          "SELECT state AS status FROM pg_stat_replication",
        )
      )[0]?.status,
    ).toBe("streaming");

    await onServer(replicaDb, "SELECT pg_wal_replay_pause()");
    try {
      await store.storeConversation({ id: "c2", userId: "u1", agentId: "a1" });
      await store.storeMessage(messageInput("m2", "c2", 2_000, { embedding: [1, 0] }));
      await store.storeTurnTrace(traceInput("t2", "m2", "c2", 2_000));
      expect((await store.getTurnTraceByMessageId("m2"))?.id).toBe("t2");
      // Read-after-write calls see the new data at once: the primary answers them.
      expect((await store.getConversation("c2"))?.id).toBe("c2");
      expect((await store.getImmediateContext("c2", 10)).map((m) => m.id)).toEqual(["m2"]);
      expect((await store.getMessagesByConversationId("c2")).items.map((m) => m.id)).toEqual([
        "m2",
      ]);
      expect((await store.getMessage("m2"))?.id).toBe("m2");
      // The reads that may lag do lag: the paused standby answers them.
      expect(ids(await store.listConversations())).toEqual(["c1"]);
      expect(ids(await store.getConversationsByUserId("u1"))).toEqual(["c1"]);
      expect(ids(await store.queryTurnTraces({}))).toEqual(["t1"]);
      const usage = await store.summarizeUsage({ since: 0, until: 10_000_000, bucket: "day" });
      expect(usage.reduce((n, b) => n + b.turns, 0)).toBe(1);
      const hits = await store.searchMessages({ embedding: [1, 0], limit: 10 });
      expect(hits.map((h) => h.message.id)).toEqual(["m1"]);
    } finally {
      await onServer(replicaDb, "SELECT pg_wal_replay_resume()");
    }
    await caughtUp();
    expect(ids(await store.listConversations())).toEqual(["c1", "c2"]);
    await store.close();
  });

  it("a replica that is gone: reads fall back to the primary, or reject with ConnectionError when asked to", async () => {
    // After a failure the replica is skipped for replica_cooldown_ms, then probed.
    const falling = await open({ replica_cooldown_ms: 200 });
    const strict = await open({ replica_fallback: "error", replica_cooldown_ms: 200 });
    await falling.storeConversation({ id: "c3", userId: "u3" });
    await standby.stop({ keepData: true });
    try {
      expect(ids(await falling.getConversationsByUserId("u3"))).toEqual(["c3"]);
      await expect(strict.getConversationsByUserId("u3")).rejects.toMatchObject({
        code: "CONNECTION",
        message: expect.stringMatching(/\[postgres\].*read replica could not answer/),
      });
      // Calls that never use the replica are unaffected.
      expect((await strict.getConversation("c3"))?.id).toBe("c3");
    } finally {
      await standby.start();
    }
    await caughtUp();
    // The first read after the cool-down starts the probe (and is still refused); once the probe
    // got its answer, the replica serves again.
    await new Promise((r) => setTimeout(r, 250));
    await strict.getConversationsByUserId("u3").catch(() => {});
    let back: string[] | null = null;
    for (let i = 0; i < 100 && back === null; i++) {
      back = await strict.getConversationsByUserId("u3").then(ids, () => null);
      if (back === null) await new Promise((r) => setTimeout(r, 50));
    }
    expect(back).toEqual(["c3"]);
    await falling.close();
    await strict.close();
  });

  it("refuses replica_dsn together with replica_pool", async () => {
    const pool = new pg.Pool({ connectionString: replicaDb });
    await expect(open({ replica_pool: pool })).rejects.toMatchObject({
      code: "CONFIGURATION",
      message: expect.stringMatching(/at most one of replica_dsn or replica_pool/),
    });
    await pool.end();
  });
});
