import pg from "pg";

/** How a `PostgresMessageStore` reaches its tables. */
export interface PostgresStoreOptions {
  /** The pool to run every statement on. */
  pool: pg.Pool;
  /** True when the store created the pool and must end it on `close()`. */
  ownsPool: boolean;
  /** Schema holding the tables (default `public`). */
  schema?: string;
  /**
   * How long to wait for the answer to one statement before cancelling it on the server, in ms
   * (`query_timeout_ms`; default 60000). `null`: wait as long as it takes.
   */
  queryTimeoutMs?: number | null;
}

/** The `Client` class a pool creates (pg-pool's `Client` option), for the cleanup connection. */
export function clientClassOf(pool: pg.Pool): typeof pg.Client {
  const Client = (pool as { Client?: unknown }).Client;
  return typeof Client === "function" ? (Client as typeof pg.Client) : pg.Client;
}
