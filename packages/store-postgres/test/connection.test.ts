import { createServer, type Server, type Socket } from "node:net";
import { inspect } from "node:util";
import { ConfigurationError, ConnectionError, MessageStore } from "@message-store/core";
import { findFreePort } from "@message-store/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTimeouts } from "../src/config.js";
import { PostgresConfigSchema, PostgresMessageStore } from "../src/index.js";
import { conversation, openStore, useDatabase } from "./helpers.js";

const db = useDatabase("ms_pg_connection");
const SECRET = "s3cret-pw";

/** Everything a log line or error reporter could print about an error, causes included. */
function everything(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return [
    inspect(error, { depth: 10 }),
    String((error as Error).stack),
    inspect(cause, { depth: 10 }),
    String((cause as Error | undefined)?.stack),
  ].join("\n");
}

async function failure(config: Record<string, unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await PostgresMessageStore.open({ storage: "postgres", ...config } as never).then(
    () => new Error("opened unexpectedly"),
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

describe("unreachable server, bad DSN", () => {
  let silent: Server;
  let silentPort = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // Accepts TCP connections and never answers: only the connect timeout can end the wait.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it("a closed port gives ConnectionError quickly, without the password", async () => {
    const port = await findFreePort();
    const { error, ms } = await failure({ dsn: `postgres://u:${SECRET}@127.0.0.1:${port}/db` });
    expect(error).toBeInstanceOf(ConnectionError);
    expect(ms).toBeLessThan(5_000);
    expect(everything(error)).not.toContain(SECRET);
    expect((error as Error).message).toMatch(/^\[message-store\] \[postgres\] /);
  });

  it("a server that never answers gives ConnectionError after connect_timeout_ms", async () => {
    const { error, ms } = await failure({
      dsn: `postgres://u:${SECRET}@127.0.0.1:${silentPort}/db`,
      connect_timeout_ms: 700,
    });
    expect(error).toBeInstanceOf(ConnectionError);
    expect(ms).toBeGreaterThanOrEqual(600);
    expect(ms).toBeLessThan(5_000);
    expect(everything(error)).not.toContain(SECRET);
  });

  it("an unknown host gives ConnectionError without the password", async () => {
    const dsn = `postgres://u:${SECRET}@no-such-host.invalid:5432/db`;
    const { error, ms } = await failure({ dsn, connect_timeout_ms: 2_000 });
    expect(error).toBeInstanceOf(ConnectionError);
    expect(ms).toBeLessThan(5_000);
    expect(everything(error)).not.toContain(SECRET);
  });

  it.each([
    ["an unclosed IPv6 host", `postgres://u:${SECRET}@[broken/db`],
    ["a bad port", `postgres://u:${SECRET}@127.0.0.1:notaport/db`],
    ["no scheme", `u:${SECRET}@localhost:5432/db`],
    ["another scheme", `mysql://u:${SECRET}@127.0.0.1/db`],
    ["plain words", `not a dsn ${SECRET}`],
  ])(
    "a DSN with %s gives ConfigurationError before any I/O, without the password",
    async (_, dsn) => {
      const { error } = await failure({ dsn });
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(
        /^\[message-store\] \[postgres\] invalid postgres config: dsn: /,
      );
      expect(everything(error)).not.toContain(SECRET);
    },
  );

  it("the factory (the adapter registered on import) reports the same ConnectionError", async () => {
    const port = await findFreePort();
    const error = await MessageStore.initialize({
      storage: "postgres",
      dsn: `postgres://u:${SECRET}@127.0.0.1:${port}/db`,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/^\[message-store\] \[postgres\] /);
    expect(everything(error)).not.toContain(SECRET);
  });
});

describe("configuration", () => {
  it("passes pool_min, pool_max, timeouts to the pool it owns and ends it on close", async () => {
    const store = await openStore(db.url(), {
      pool_min: 1,
      pool_max: 7,
      statement_timeout_ms: 1_234,
      connect_timeout_ms: 4_321,
    });
    const options = store.driver.pool.options as pg.PoolConfig;
    expect(options).toMatchObject({
      min: 1,
      max: 7,
      statement_timeout: 1_234,
      connectionTimeoutMillis: 4_321,
    });
    const { rows } = await store.driver.pool.query("SHOW statement_timeout");
    expect(rows[0].statement_timeout).toBe("1234ms");
    await store.close();
    expect(store.driver.pool.ended).toBe(true);
  });

  it("rejects invalid configs before any I/O, naming every problem", async () => {
    const pool = new pg.Pool({ connectionString: db.url() });
    for (const [config, problem] of [
      [{ dsn: db.url(), pool_min: 5, pool_max: 2 }, "pool_min must not exceed pool_max"],
      [{ dsn: db.url(), schema: 'bad"name' }, "schema: schema must be a plain SQL identifier"],
      [{ dsn: db.url(), pool }, "give exactly one of dsn or pool"],
      [{ dsn: db.url(), unknown: 1 }, 'unknown key "unknown"'],
      [{ dsn: db.url(), poolMax: 3 }, 'unknown key "poolMax" (did you mean "pool_max"?)'],
      [{ dsn: undefined }, "dsn is undefined (given with no value: is the environment variable"],
      [{}, "give exactly one of dsn or pool"],
      [{ pool: { query: 1 } }, "pool: pool must be a pg.Pool"],
      [{ dsn: db.url(), pool_max: 0 }, "pool_max: "],
      [
        { pool, statement_timeout_ms: 10 },
        "statement_timeout_ms applies to pools the store creates",
      ],
      [{ dsn: db.url(), statement_timeout_ms: -1 }, "statement_timeout_ms: "],
      ...[
        "information_schema",
        "pg_catalog",
        "pg_toast",
        "pg_temp_3",
        "PG_Catalog",
        "Information_Schema",
      ].map(
        (schema) =>
          [{ dsn: db.url(), schema }, `schema: "${schema}" is a PostgreSQL system schema`] as const,
      ),
    ] as const) {
      const { error } = await failure(config);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toContain(
        "[message-store] [postgres] invalid postgres config",
      );
      expect((error as Error).message).toContain(problem);
    }
    const other = await failure({ storage: "mongodb", dsn: db.url() });
    expect(other.error).toBeInstanceOf(ConfigurationError);
    await pool.end();
  });

  it("fills the documented defaults", () => {
    const resolved = PostgresConfigSchema.parse({ dsn: "postgres://h/db" });
    expect(resolved).toEqual({
      dsn: "postgres://h/db",
      pool_min: 2,
      pool_max: 10,
      connect_timeout_ms: 10_000,
      transaction_pooler: false,
      prepared_statements: true,
      replica_fallback: "primary",
      replica_cooldown_ms: 30_000,
      create: true,
    });
    expect(PostgresConfigSchema.safeParse({ dsn: "/var/run/postgresql" }).success).toBe(true);
    expect(PostgresConfigSchema.safeParse({ dsn: "postgresql://h/db" }).success).toBe(true);
  });

  it("refuses statement_timeout_ms behind a transaction-mode pooler", () => {
    const result = PostgresConfigSchema.safeParse({
      dsn: "postgres://h/db",
      transaction_pooler: true,
      statement_timeout_ms: 1_000,
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/ALTER ROLE/);
  });

  it("defaults statement_timeout_ms to 30 s and query_timeout_ms to statement_timeout_ms + 5 s, else 60 s", () => {
    const pool = new pg.Pool();
    const cases = [
      [{}, { statementTimeoutMs: 30_000, queryTimeoutMs: 35_000 }],
      [{ statement_timeout_ms: 1_000 }, { statementTimeoutMs: 1_000, queryTimeoutMs: 6_000 }],
      [{ statement_timeout_ms: 0 }, { statementTimeoutMs: null, queryTimeoutMs: 60_000 }],
      [{ query_timeout_ms: 32_500 }, { statementTimeoutMs: 30_000, queryTimeoutMs: 32_500 }],
      [
        { statement_timeout_ms: 0, query_timeout_ms: 700 },
        { statementTimeoutMs: null, queryTimeoutMs: 700 },
      ],
      [
        { pool, dsn: undefined },
        { statementTimeoutMs: null, queryTimeoutMs: 60_000 },
      ],
      [
        { pool, dsn: undefined, query_timeout_ms: 700 },
        { statementTimeoutMs: null, queryTimeoutMs: 700 },
      ],
      [{ transaction_pooler: true }, { statementTimeoutMs: null, queryTimeoutMs: 60_000 }],
    ] as const;
    for (const [extra, expected] of cases) {
      const resolved = PostgresConfigSchema.parse({ dsn: "postgres://h/db", ...extra });
      expect(callTimeouts(resolved), JSON.stringify(Object.keys(extra))).toEqual(expected);
    }
  });

  it("refuses a query_timeout_ms not above the server's statement_timeout_ms (given or default)", () => {
    const cases = [
      [
        { query_timeout_ms: 2_500 },
        /query_timeout_ms \(2500\) must exceed statement_timeout_ms \(30000, the default\)/,
      ],
      [
        { statement_timeout_ms: 1_000, query_timeout_ms: 1_000 },
        /query_timeout_ms \(1000\) must exceed statement_timeout_ms \(1000\)/,
      ],
    ] as const;
    for (const [extra, message] of cases) {
      const result = PostgresConfigSchema.safeParse({ dsn: "postgres://h/db", ...extra });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(["query_timeout_ms"]);
      expect(result.error?.issues[0]?.message).toMatch(message);
    }
    // Where the store sets no server timeout, the client's is the only one.
    for (const extra of [
      { statement_timeout_ms: 0, query_timeout_ms: 100 },
      { transaction_pooler: true, query_timeout_ms: 100 },
    ]) {
      expect(PostgresConfigSchema.safeParse({ dsn: "postgres://h/db", ...extra }).success).toBe(
        true,
      );
    }
  });

  it("open() refuses that configuration with ConfigurationError before any I/O", async () => {
    const error = await PostgresMessageStore.open({
      storage: "postgres",
      dsn: "postgres://127.0.0.1:1/none",
      statement_timeout_ms: 5_000,
      query_timeout_ms: 4_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(
      /query_timeout_ms \(4000\) must exceed statement_timeout_ms \(5000\)/,
    );
  });

  it("leaves a caller-owned pool open and untouched on close", async () => {
    const pool = new pg.Pool({ connectionString: db.url(), max: 2 });
    const store = await PostgresMessageStore.open({ storage: "postgres", pool });
    expect(store.driver.pool).toBe(pool);
    await store.storeConversation(conversation("owned"));
    await store.close();
    expect(pool.ended).toBe(false);
    expect(pool.listenerCount("error")).toBe(0);
    const { rows } = await pool.query("SELECT user_id FROM conversations WHERE id = 'owned'");
    expect(rows).toEqual([{ user_id: "u1" }]);
    await pool.end();
  });

  it("a statement that exceeds statement_timeout_ms fails with ConnectionError", async () => {
    const store = await openStore(db.url(), { statement_timeout_ms: 300 });
    await store.storeConversation(conversation("locked"));
    const holder = new pg.Client({ connectionString: db.url() });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("SELECT * FROM conversations WHERE id = 'locked' FOR UPDATE");
    const started = Date.now();
    const error = await store.storeConversation(conversation("locked")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/statement_timeout/);
    expect(Date.now() - started).toBeLessThan(5_000);
    await holder.query("ROLLBACK");
    await holder.end();
    // The connection survived the cancelled statement and is reused.
    expect(await store.getConversation("locked")).not.toBeNull();
    await store.close();
  });

  it("refuses a server that prints floats inexactly (extra_float_digits < 1)", async () => {
    const pool = new pg.Pool({
      connectionString: db.url(),
      options: "-c extra_float_digits=0",
    });
    const { error } = await failure({ pool });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/extra_float_digits/);
    await pool.end();
  });
});
