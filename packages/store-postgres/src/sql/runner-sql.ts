import { MIGRATIONS_TABLE, type Migration } from "./migrations.js";
import { quoteIdent } from "./quote.js";

/**
 * The layout of a schema's `messages` table (named by parameter `p`) as the catalog shows it:
 * `partitioned` is NULL when there is no such table, `partitions` counts its partitions.
 */
const layout = (p: string) => `(SELECT pt.partrelid IS NOT NULL FROM pg_class r
          LEFT JOIN pg_partitioned_table pt ON pt.partrelid = r.oid
         WHERE r.oid = to_regclass(${p})) AS partitioned,
       (SELECT count(*)::int FROM pg_inherits i
         WHERE i.inhparent = to_regclass(${p})) AS partitions`;

/** SQL the migration runner sends, for one schema. */
export function migrationSql(schema: string) {
  const s = quoteIdent(schema);
  const table = `${s}.${MIGRATIONS_TABLE}`;
  return {
    /**
     * Server facts checked before anything else, whether the migrations table exists, and the
     * layout of the tables (see `layout.ts`).
     */
    probe: {
      text: `SELECT current_setting('server_version_num')::int AS server_version,
       current_setting('extra_float_digits')::int AS extra_float_digits,
       to_regclass($1) IS NOT NULL AS has_migrations,
       ${layout("$2")}`,
      values: [table, `${s}.messages`],
    },
    /** The layout alone, read again under the lock before a schema is created or upgraded. */
    layout: { text: `SELECT ${layout("$1")}`, values: [`${s}.messages`] },
    /** Applied versions, and the checksum of the functions installed (on the newest row). */
    state: `SELECT version, functions_checksum FROM ${table} ORDER BY version`,
    /** Serialises migrations of this schema across processes until the transaction ends. */
    lock: {
      text: "SELECT pg_advisory_xact_lock(hashtext($1))",
      values: [`@message-store/postgres:migrate:${schema}`],
    },
    createBase: `CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${table} (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  functions_checksum text
);`,
    record: `INSERT INTO ${table} (version, name) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING`,
    recordFunctions: `UPDATE ${table} SET functions_checksum = $1
 WHERE version = (SELECT max(version) FROM ${table})`,
    step: (m: Migration) => m.sql(s),
    begin: "BEGIN",
    commit: "COMMIT",
    rollback: "ROLLBACK",
  };
}
