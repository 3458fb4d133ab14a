import pg from "pg";
import { callTimeouts, type ResolvedPostgresConfig } from "../config.js";
import type { Replica } from "../store-options.js";
import { END_GRACE_MS } from "./backend-reaper.js";
import { within } from "./timing.js";

/** The `application_name` of the store's own connections, as `pg_stat_activity` shows it. */
export const APPLICATION_NAME = "message-store";

/** How much later than `statement_timeout` the session's `transaction_timeout` fires, in ms. */
export const TRANSACTION_TIMEOUT_MARGIN_MS = 1_000;

/** Sets `transaction_timeout` ($1, ms) on a server that has it (17+), does nothing elsewhere. */
const TRANSACTION_TIMEOUT_SQL = `SELECT set_config('transaction_timeout', $1, false)
 WHERE current_setting('server_version_num')::int >= 170000`;

/** The connections of each pool made here, so that ending it can drop those the server never closes. */
const connectionsOf = new WeakMap<pg.Pool, Set<pg.PoolClient>>();

/**
 * The pool a store owns when it is given a `dsn`: `pool_min`/`pool_max` as the pool's
 * `min`/`max`, `connect_timeout_ms` as `connectionTimeoutMillis` (a connection attempt, and a wait
 * for a free pooled connection, fails after it), `statement_timeout_ms` (default 30 s) as the
 * server-side `statement_timeout` and `idle_in_transaction_session_timeout`, and (PostgreSQL 17+)
 * `transaction_timeout` 1 s later, of every connection, TCP keepalive after 10 s so a dead peer
 * is noticed. No client-side `query_timeout`: the store enforces `query_timeout_ms` itself,
 * cancelling on the server first (see `StatementRunner`), since `pg`'s own read timeout abandons
 * a statement that then still runs on the server.
 */
export function createPool(config: ResolvedPostgresConfig & { dsn: string }): pg.Pool {
  const { statementTimeoutMs } = callTimeouts(config);
  const options: pg.PoolConfig = {
    connectionString: config.dsn,
    min: config.pool_min,
    max: config.pool_max,
    connectionTimeoutMillis: config.connect_timeout_ms,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: APPLICATION_NAME,
  };
  if (statementTimeoutMs !== null) {
    options.statement_timeout = statementTimeoutMs;
    // No statement of the store leaves a transaction open, but a caller's or an operator's
    // session on the store's pool must not hold locks for longer than a statement may run.
    options.idle_in_transaction_session_timeout = statementTimeoutMs;
  }
  const pool = new pg.Pool(options);
  if (statementTimeoutMs !== null) {
    // `transaction_timeout` exists from PostgreSQL 17; a startup parameter the server does not
    // know would refuse the login, so it is set once per connection, queued before its first
    // statement, and only where the server has it. It ends the whole session (FATAL 25P04), so
    // it comes a margin after `statement_timeout`, which cancels the statement and keeps the
    // connection: a backstop for a transaction no statement timeout covers.
    const transactionTimeoutMs = statementTimeoutMs + TRANSACTION_TIMEOUT_MARGIN_MS;
    // Learnt from the first connection: an older server costs that one statement, no more.
    let serverHasIt: boolean | null = null;
    pool.on("connect", (client) => {
      if (serverHasIt === false) return;
      client.query(TRANSACTION_TIMEOUT_SQL, [String(transactionTimeoutMs)]).then(
        (result) => {
          serverHasIt = result.rows.length > 0;
        },
        () => {},
      );
    });
  }
  // An idle pooled connection that dies (server restart) is emitted here; without a listener
  // Node would crash. The pool has already discarded it and the next query reconnects.
  pool.on("error", () => {});
  const clients = new Set<pg.PoolClient>();
  pool.on("connect", (client) => clients.add(client as pg.PoolClient));
  pool.on("remove", (client) => clients.delete(client as pg.PoolClient));
  connectionsOf.set(pool, clients);
  return pool;
}

/**
 * Ends a pool the store owns. `pool.end()` only says goodbye (Terminate) and forgets each
 * connection; a socket the server never closes (frozen, partitioned) would stay open and keep the
 * process alive. For a pool made by {@link createPool} this waits up to {@link END_GRACE_MS} for
 * the server to close them, then drops the rest, so it resolves in bounded time with no socket
 * left open.
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  const clients = connectionsOf.get(pool);
  await pool.end();
  if (!clients || clients.size === 0) return;
  const closed = new Promise<void>((resolve) => {
    pool.on("remove", () => {
      if (clients.size === 0) resolve();
    });
  });
  if ((await within(closed, END_GRACE_MS)) === "late") {
    for (const client of clients) client.connection.stream.destroy();
  }
}

/**
 * The read replica of a configuration: the caller's `replica_pool`, or a pool the store owns
 * from `replica_dsn` (the primary's settings, `replica_pool_max` as its size), or `undefined`.
 */
export function createReplica(config: ResolvedPostgresConfig): Replica | undefined {
  const policy = { fallback: config.replica_fallback, cooldownMs: config.replica_cooldown_ms };
  if (config.replica_pool) return { pool: config.replica_pool, ownsPool: false, ...policy };
  if (config.replica_dsn === undefined) return undefined;
  const max = config.replica_pool_max ?? config.pool_max;
  const pool = createPool({
    ...config,
    dsn: config.replica_dsn,
    pool_max: max,
    pool_min: Math.min(config.pool_min, max),
  });
  return { pool, ownsPool: true, ...policy };
}
