import pg from "pg";
import type { ResolvedPostgresConfig } from "./config.js";

/**
 * The pool a store owns when it is given a `dsn`: `pool_min`/`pool_max` as the pool's
 * `min`/`max`, `connect_timeout_ms` as `connectionTimeoutMillis` (a connection attempt, and a wait
 * for a free pooled connection, fails after it), `statement_timeout_ms` as the server-side
 * `statement_timeout` of every connection, `query_timeout_ms` as the client-side `query_timeout`
 * (the server cannot enforce a timeout while it is frozen or partitioned away), TCP keepalive
 * after 10 s so a dead peer is noticed.
 */
export function createPool(config: ResolvedPostgresConfig & { dsn: string }): pg.Pool {
  const options: pg.PoolConfig = {
    connectionString: config.dsn,
    min: config.pool_min,
    max: config.pool_max,
    connectionTimeoutMillis: config.connect_timeout_ms,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    query_timeout:
      config.query_timeout_ms ??
      (config.statement_timeout_ms === undefined ? 60_000 : config.statement_timeout_ms + 5_000),
    application_name: "message-store",
  };
  if (config.statement_timeout_ms !== undefined) {
    options.statement_timeout = config.statement_timeout_ms;
  }
  const pool = new pg.Pool(options);
  // An idle pooled connection that dies (server restart) is emitted here; without a listener
  // Node would crash. The pool has already discarded it and the next query reconnects.
  pool.on("error", () => {});
  return pool;
}
