import pg from "pg";

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
