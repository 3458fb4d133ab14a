import { ConfigurationError } from "@message-store/core";
import type pg from "pg";
import { columnTypes } from "./column-types.js";
import { ADAPTER, isConnectionFailure, toStoreError } from "./errors.js";
import type { Queryable } from "./run-query.js";
import { LATEST_VERSION, MIGRATIONS, migrationSql } from "./schema.js";

/** Oldest server the SQL here supports (stored generated columns, shortest-exact floats). */
const MIN_SERVER_VERSION = 120000;

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** Stop after this version (default: the latest). Tests use it to build old schemas. */
  targetVersion?: number;
}

function check(probe: { server_version: number; extra_float_digits: number }): void {
  if (probe.server_version < MIN_SERVER_VERSION) {
    throw new ConfigurationError(
      `PostgreSQL ${probe.server_version} is too old; version 12 or newer is required`,
      { adapter: ADAPTER },
    );
  }
  if (probe.extra_float_digits < 1) {
    throw new ConfigurationError(
      `extra_float_digits is ${probe.extra_float_digits}; it must be at least 1 (the default) so that floats round-trip exactly`,
      { adapter: ADAPTER },
    );
  }
}

/**
 * Brings `schema` up to the latest version (or `targetVersion`). An up-to-date schema costs two
 * reads and takes no lock. Otherwise, in one transaction under an advisory lock keyed on the
 * schema name (so two processes starting at once apply each step once): create the schema and
 * the migrations table, apply the missing steps in order, record each one. A schema written by
 * a newer version of this package is refused with `ConfigurationError`.
 */
export async function migrate(
  pool: Queryable,
  schema: string,
  options: MigrateOptions = {},
): Promise<void> {
  const target = options.targetVersion ?? LATEST_VERSION;
  const sql = migrationSql(schema);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toStoreError(error);
  }
  let broken: unknown;
  const onError = (error: unknown) => {
    broken ??= error;
  };
  client.on("error", onError);
  const query = (text: string, values?: unknown[]) =>
    client.query({ text, values, types: columnTypes });
  const versions = async () =>
    (await query(sql.appliedVersions)).rows.map((r) => r.version as number);
  let inTransaction = false;
  try {
    const probe = (await query(sql.probe.text, sql.probe.values)).rows[0];
    check(probe);
    if (probe.has_migrations) {
      const applied = await versions();
      const newest = Math.max(0, ...applied);
      if (newest > LATEST_VERSION) {
        throw new ConfigurationError(
          `schema "${schema}" is at version ${newest}, newer than this package supports (${LATEST_VERSION}); upgrade @message-store/postgres`,
          { adapter: ADAPTER },
        );
      }
      if (MIGRATIONS.every((m) => m.version > target || applied.includes(m.version))) return;
    }
    await query(sql.begin);
    inTransaction = true;
    await query(sql.lock.text, sql.lock.values);
    await query(sql.createBase);
    const applied = new Set(await versions());
    for (const step of MIGRATIONS) {
      if (step.version > target || applied.has(step.version)) continue;
      await query(sql.step(step));
      await query(sql.record, [step.version, step.name]);
    }
    await query(sql.commit);
    inTransaction = false;
  } catch (error) {
    if (isConnectionFailure(error)) broken ??= error;
    if (inTransaction && !broken) await query(sql.rollback).catch(() => {});
    throw toStoreError(error);
  } finally {
    client.off("error", onError);
    client.release(broken === undefined ? undefined : true);
  }
}
