import type pg from "pg";
import { columnTypes } from "./column-types.js";
import { isConnectionFailure, toStoreError } from "./errors.js";

/** The part of `pg.Pool` the store uses; any pg-compatible pool works. */
export type Queryable = Pick<pg.Pool, "connect">;

/**
 * Runs one statement on one pooled connection: one checkout, one round trip. Unlike
 * `pool.query`, a statement that fails on a healthy connection (an integrity violation, say)
 * returns the connection to the pool instead of closing it; a broken connection is discarded.
 * Every error comes back as core's error.
 */
export async function runQuery<R extends pg.QueryResultRow = Record<string, unknown>>(
  pool: Queryable,
  text: string,
  values: readonly unknown[] = [],
): Promise<pg.QueryResult<R>> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toStoreError(error);
  }
  let broken: unknown;
  // An idle-time socket error would otherwise be emitted with no listener and crash the process.
  const onError = (error: unknown) => {
    broken ??= error;
  };
  client.on("error", onError);
  try {
    return await client.query<R>({ text, values: values as unknown[], types: columnTypes });
  } catch (error) {
    if (isConnectionFailure(error)) broken ??= error;
    throw toStoreError(error);
  } finally {
    client.off("error", onError);
    client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
  }
}
