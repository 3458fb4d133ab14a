import pg from "pg";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const COUNT_SQL = `SELECT count(*) FILTER (WHERE application_name = 'message-store') AS pool,
                          count(*) FILTER (WHERE application_name = 'message-store:cleanup') AS cleanup
                     FROM pg_stat_activity WHERE datname = current_database()`;

/** Counts of the store's backends: its pool's, and its cleanup connection's. */
export interface BackendCount {
  pool: number;
  cleanup: number;
}

/** Counts the store's backends in `pg_stat_activity` (by `application_name`) on a connection of its own. */
export async function countBackends(url: string): Promise<BackendCount> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ pool: string; cleanup: string }>(COUNT_SQL);
    return { pool: Number(rows[0]!.pool), cleanup: Number(rows[0]!.cleanup) };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Samples the store's backend counts every `intervalMs` from its own connection until stopped;
 * while the server does not answer (frozen), samples are simply missing.
 */
export class BackendSampler {
  readonly samples: (BackendCount & { at: number })[] = [];
  #stopped = false;
  #loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly intervalMs = 25,
  ) {}

  start(): this {
    this.#loop = this.#run();
    return this;
  }

  async stop(): Promise<{ maxPool: number; maxTotal: number; samples: number }> {
    this.#stopped = true;
    await this.#loop;
    return {
      maxPool: Math.max(0, ...this.samples.map((s) => s.pool)),
      maxTotal: Math.max(0, ...this.samples.map((s) => s.pool + s.cleanup)),
      samples: this.samples.length,
    };
  }

  async #run(): Promise<void> {
    let client: pg.Client | null = null;
    while (!this.#stopped) {
      try {
        if (!client) {
          client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 1_000 });
          client.on("error", () => {});
          await client.connect();
        }
        const { rows } = await client.query<{ pool: string; cleanup: string }>({
          text: COUNT_SQL,
          query_timeout: 1_000,
        } as pg.QueryConfig);
        this.samples.push({
          at: Date.now(),
          pool: Number(rows[0]!.pool),
          cleanup: Number(rows[0]!.cleanup),
        });
      } catch {
        const dead = client;
        client = null;
        dead?.connection.stream.destroy();
      }
      await sleep(this.intervalMs);
    }
    await client?.end().catch(() => {});
  }
}

/**
 * Waits until no backend of the store is running a statement or holding a transaction open, so
 * that what the database holds afterwards is final ("the server has finished").
 */
export async function serverFinished(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on("error", () => {});
    try {
      await client.connect();
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'message-store' AND state <> 'idle'`,
      );
      if (Number(rows[0]!.n) === 0) return;
    } catch {
      // not reachable yet
    } finally {
      await client.end().catch(() => {});
    }
    if (Date.now() > deadline) throw new Error("the server did not finish the store's statements");
    await sleep(100);
  }
}

/** Which of `ids` are stored, read on a fresh connection (not through the store). */
export async function storedIds(url: string, ids: readonly string[]): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      "SELECT id FROM messages WHERE id = ANY($1::text[])",
      [ids],
    );
    return new Set(rows.map((r) => r.id));
  } finally {
    await client.end();
  }
}
