import pg from "pg";
import type { ReplicaPolicy } from "./config.js";

/** How a `PostgresDriver` reaches its tables. */
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
  /**
   * True behind a transaction-mode pooler (`transaction_pooler`): a dropped connection is left to
   * the pooler instead of being looked up on the server by a backend key the pooler made up.
   */
  transactionPooler?: boolean;
  /**
   * Send statements as named prepared statements (`prepared_statements`; default true, always
   * false behind a transaction-mode pooler).
   */
  preparedStatements?: boolean;
  /** A read replica for the reads that may lag (see `replica_dsn`). */
  replica?: Replica;
}

/** A read replica: its pool, whether the store ends it, and how lagging reads use it. */
export type Replica = { pool: pg.Pool; ownsPool: boolean } & ReplicaPolicy;

/** The `Client` class a pool creates (pg-pool's `Client` option), for the cleanup connection. */
export function clientClassOf(pool: pg.Pool): typeof pg.Client {
  const Client = (pool as { Client?: unknown }).Client;
  return typeof Client === "function" ? (Client as typeof pg.Client) : pg.Client;
}
