import type pg from "pg";
import { columnTypes } from "./column-types.js";
import { isConnectionFailure } from "./errors.js";

/** The part of `pg.Pool` the store uses; any pg-compatible pool works. */
export type Queryable = Pick<pg.Pool, "connect">;

/**
 * Runs one statement on one pooled connection: one checkout, one round trip. Unlike
 * `pool.query`, a statement that fails on a healthy connection (an integrity violation, say)
 * returns the connection to the pool instead of closing it; a broken connection is discarded.
 * Errors are the driver's: the store's `mapError` turns them into core's.
 */
export async function runQuery<R extends pg.QueryResultRow = Record<string, unknown>>(
  pool: Queryable,
  text: string,
  values: readonly unknown[] = [],
): Promise<pg.QueryResult<R>> {
  const client = await pool.connect();
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
    throw error;
  } finally {
    client.off("error", onError);
    client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
  }
}
