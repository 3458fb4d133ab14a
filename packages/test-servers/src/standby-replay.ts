import pg from "pg";
import { type PostgresServer, startEmbeddedPostgres } from "./embedded-postgres.js";
import { createTestDatabase } from "./test-databases.js";

/** Runs one statement on its own connection to `url` and returns its rows. */
export async function queryServer<T>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * Resolves once the standby at `standbyUrl` has replayed everything the primary at `primaryUrl`
 * had written when it was called; rejects after `timeoutMs`.
 */
export async function waitForReplay(
  primaryUrl: string,
  standbyUrl: string,
  timeoutMs = 10_000,
): Promise<void> {
  const [current] = await queryServer<{ lsn: string }>(
    primaryUrl,
    "SELECT pg_current_wal_lsn()::text AS lsn",
  );
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [replayed] = await queryServer<{ done: boolean }>(
      standbyUrl,
      "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done",
      [current!.lsn],
    );
    if (replayed?.done) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the standby did not catch up in ${timeoutMs / 1000} s`);
}

/** A primary with one database and a streaming standby of it (both embedded PostgreSQL 18). */
export interface ReplicatedDatabase {
  primary: PostgresServer;
  standby: PostgresServer;
  /** The database's URL on the primary. */
  primaryDb: string;
  /** The same database's URL on the standby. */
  replicaDb: string;
  /** Stops the standby, then the primary. */
  stop(): Promise<void>;
}

/** Starts a primary, creates a database `name_…` on it, and starts a streaming standby of it. */
export async function startReplicatedDatabase(name: string): Promise<ReplicatedDatabase> {
  const primary = await startEmbeddedPostgres();
  const primaryDb = await createTestDatabase(primary.url, name);
  const standby = await startEmbeddedPostgres({ standbyOf: primary });
  const url = new URL(primaryDb);
  url.port = String(standby.port);
  return {
    primary,
    standby,
    primaryDb,
    replicaDb: url.toString(),
    async stop() {
      await standby.stop();
      await primary.stop();
    },
  };
}
