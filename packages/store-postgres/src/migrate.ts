import { ConfigurationError, NotFoundError } from "@message-store/core";
import type pg from "pg";
import { columnTypes } from "./column-types.js";
import { ADAPTER } from "./config.js";
import type { Queryable } from "./connection/statement-runner.js";
import { isConnectionFailure, toStoreError } from "./errors.js";
import { type FoundLayout, type Partitions, resolveLayout } from "./layout.js";
import { checkpointTablesSql } from "./sql/checkpoint-tables.js";
import { functionsChecksum, functionsSql } from "./sql/functions.js";
import { idLookupsSql } from "./sql/id-lookups.js";
import { MIGRATIONS, type Migration } from "./sql/migrations.js";
import { partitionedVersionOne } from "./sql/partitioned-layout.js";
import { quoteIdent } from "./sql/quote.js";
import { migrationSql } from "./sql/runner-sql.js";

/** Oldest server the SQL here supports (stored generated columns, shortest-exact floats). */
const MIN_SERVER_VERSION = 120000;

/** What {@link applySchema} brings a schema to. The package's own by default; tests vary it. */
export interface SchemaPlan {
  migrations: readonly Migration[];
  /** The functions' script for a schema (a quoted identifier), and its checksum. */
  functions: { sql: (schema: string) => string; checksum: string };
}

/** The plan for a layout (the package's), or one plan whatever the layout (tests). */
export type LayoutPlan = SchemaPlan | ((partitions: Partitions) => SchemaPlan);

/**
 * This package's plan for a layout: its migrations and its derived functions. A partitioned
 * schema differs in the steps that create tables, version 1 (see `partitioned-layout.ts`) and
 * version 5 (the checkpoint tables, `checkpoint-tables.ts`) and version 6 (the id lookups,
 * `id-lookups.ts`): the other steps apply to both
 * layouts.
 */
export function packagePlan(partitions: Partitions = null): SchemaPlan {
  const partitioned = partitions !== null;
  const forLayout = (m: Migration): Migration =>
    m.version === 1
      ? partitionedVersionOne(partitions!)
      : m.version === 5
        ? { ...m, sql: (s) => checkpointTablesSql(s, partitions) }
        : m.version === 6
          ? { ...m, sql: (s) => idLookupsSql(s, partitions!) }
          : m;
  return {
    migrations: partitioned ? MIGRATIONS.map(forLayout) : MIGRATIONS,
    functions: {
      sql: (schema) => functionsSql(schema, partitioned),
      checksum: functionsChecksum(partitioned),
    },
  };
}

const planFor = (plan: LayoutPlan, partitions: Partitions) =>
  typeof plan === "function" ? plan(partitions) : plan;

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

interface State {
  applied: Set<number>;
  newest: number;
  checksum: string | null;
}

function stateOf(rows: { version: number; functions_checksum: string | null }[]): State {
  const newest = rows.at(-1);
  return {
    applied: new Set(rows.map((r) => r.version)),
    newest: newest?.version ?? 0,
    checksum: newest?.functions_checksum ?? null,
  };
}

function upToDate(state: State, plan: SchemaPlan): boolean {
  return (
    plan.migrations.every((m) => state.applied.has(m.version)) &&
    state.checksum === plan.functions.checksum
  );
}

/**
 * Brings `schema` up to date: creates or upgrades the tables, and installs the SQL functions
 * when their definition changed. An up-to-date schema costs two reads and takes no lock.
 * Otherwise, in one transaction under an advisory lock keyed on the schema name (so processes
 * starting at once apply each step once): create the schema and the migrations table, apply the
 * missing steps in order and record each, and if the functions' checksum differs from the one
 * recorded, re-create them and record it. A schema written by a newer version of this package is
 * refused with `ConfigurationError`; a lost server is a `ConnectionError`.
 *
 * Run it from a deploy step as a role that may create tables, so the application's role needs
 * DML rights only (see the README's Migrations section). `partitions` creates a new schema with
 * the partitioned layout, and is checked against an existing one's (see the `partitions` config
 * key). Resolves to the schema's layout: `null` (default) or its number of partitions.
 */
export function migrate(
  pool: Queryable,
  schema: string,
  options: { partitions?: number } = {},
): Promise<Partitions> {
  return applySchema(pool, schema, packagePlan, options);
}

/** `applySchema` with `create: false` found work to do: nothing is created or migrated. */
function refuseToCreate(schema: string, hasTables: boolean): never {
  if (!hasTables) {
    throw new NotFoundError(
      `no message-store data in schema "${schema}" (opened with create: false, so no tables were created)`,
      { adapter: ADAPTER },
    );
  }
  throw new ConfigurationError(
    `schema "${schema}" needs a migration, and the store was opened with create: false; open it once without to migrate`,
    { adapter: ADAPTER },
  );
}

/**
 * {@link migrate} with any plan: the runner itself, tested with plans of future versions.
 * `queryTimeoutMs` bounds each statement on the client (the store passes its `query_timeout_ms`,
 * so that opening against a frozen server fails instead of hanging); a statement it abandons is
 * harmless here, since the steps are recorded in the same transaction and re-checked next time.
 */
export async function applySchema(
  pool: Queryable,
  schema: string,
  plan: LayoutPlan,
  options: { queryTimeoutMs?: number | null; create?: boolean; partitions?: number } = {},
): Promise<Partitions> {
  const latest = Math.max(0, ...planFor(plan, null).migrations.map((m) => m.version));
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
  const timeout = options.queryTimeoutMs ?? undefined;
  const query = (text: string, values?: unknown[]) =>
    client.query({ text, values, types: columnTypes, query_timeout: timeout } as pg.QueryConfig);
  const readState = async () => {
    const state = stateOf((await query(sql.state)).rows);
    if (state.newest > latest) {
      throw new ConfigurationError(
        `schema "${schema}" is at version ${state.newest}, newer than this package supports (${latest}); upgrade @message-store/postgres`,
        { adapter: ADAPTER },
      );
    }
    return state;
  };
  let inTransaction = false;
  try {
    const probe = (await query(sql.probe.text, sql.probe.values)).rows[0];
    check(probe);
    let layout = resolveLayout(schema, options.partitions, probe as FoundLayout);
    if (probe.has_migrations) {
      if (upToDate(await readState(), planFor(plan, layout))) return layout;
    }
    if (options.create === false) refuseToCreate(schema, probe.has_migrations);
    await query(sql.begin);
    inTransaction = true;
    await query(sql.lock.text, sql.lock.values);
    await query(sql.createBase);
    // Read again under the lock: another process may have done the work meanwhile, and created
    // the tables in another layout than this one would have.
    const found = (await query(sql.layout.text, sql.layout.values)).rows[0] as FoundLayout;
    layout = resolveLayout(schema, options.partitions, found);
    const chosen = planFor(plan, layout);
    const state = await readState();
    for (const step of chosen.migrations) {
      if (state.applied.has(step.version)) continue;
      await query(sql.step(step));
      await query(sql.record, [step.version, step.name]);
    }
    if ((await readState()).checksum !== chosen.functions.checksum) {
      await query(chosen.functions.sql(quoteIdent(schema)));
      await query(sql.recordFunctions, [chosen.functions.checksum]);
    }
    await query(sql.commit);
    inTransaction = false;
    return layout;
  } catch (error) {
    if (isConnectionFailure(error)) broken ??= error;
    if (inTransaction && !broken) await query(sql.rollback).catch(() => {});
    throw toStoreError(error);
  } finally {
    client.off("error", onError);
    client.release(broken === undefined ? undefined : true);
  }
}
