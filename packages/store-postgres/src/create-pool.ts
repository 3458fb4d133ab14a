import { ConfigurationError, type ResolvedPostgresConfig } from "@message-store/core";
import pg from "pg";
import { ADAPTER } from "./errors.js";

/**
 * Throws {@link ConfigurationError} unless `dsn` has the syntax `pg` understands: a
 * `postgres://` or `postgresql://` URL, or an absolute socket directory path. Without this check
 * a typo only surfaces as a confusing `ConnectionError` (`pg` reads "localhost:5432/db" as a
 * host name). The message never repeats the DSN, which may hold a password.
 */
export function assertDsnSyntax(dsn: string): void {
  if (dsn.startsWith("/")) return;
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    throw new ConfigurationError(
      "dsn is not a valid URL (expected postgres://user:password@host:port/database)",
      { adapter: ADAPTER },
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigurationError("dsn must use the postgres:// or postgresql:// scheme", {
      adapter: ADAPTER,
    });
  }
}

/**
 * The pool a store owns when it is given a `dsn`: `pool_min`/`pool_max` as the pool's
 * `min`/`max`, `connect_timeout_ms` as `connectionTimeoutMillis` (a connection attempt, and a wait
 * for a free pooled connection, fails after it), `statement_timeout_ms` as the server-side
 * `statement_timeout` of every connection, `query_timeout_ms` as the client-side `query_timeout`
 * (the server cannot enforce a timeout while it is frozen or partitioned away), TCP keepalive
 * after 10 s so a dead peer is noticed.
 */
export function createPool(config: ResolvedPostgresConfig & { dsn: string }): pg.Pool {
  assertDsnSyntax(config.dsn);
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
