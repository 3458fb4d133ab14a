import { createHash } from "node:crypto";
import { putCheckpoint, putCheckpointWrites } from "./checkpoint-functions.js";
import { ID_READ_FUNCTION_NAMES, idReadFunctions } from "./id-read-functions.js";
import { LIFECYCLE_FUNCTION_NAMES, lifecycleFunctions } from "./lifecycle-functions.js";
import { WRITE_FUNCTIONS, writeMessageFunctions } from "./message-writes.js";
import { partitionedWriteFunctions } from "./partitioned-writes.js";
import { quoteLiteral } from "./quote.js";
import { refuseFunction } from "./sqlstates.js";
import { putTurnTraces } from "./trace-batch-function.js";
import { putTurnTrace } from "./trace-function.js";

/**
 * The SQL functions behind the writes that need more than one statement's worth of logic but
 * must stay one round trip. PL/pgSQL also keeps the plans of its statements for the session, so
 * a function call is cheaper than the same SQL sent as text (see BENCHMARKS.md, Findings).
 *
 * Their column lists are derived from `columns.ts`, so their text is not frozen migration text:
 * the migration runner installs them (`CREATE OR REPLACE`) whenever their {@link functionsChecksum}
 * differs from the one recorded in the migrations table (see `migrate.ts`).
 *
 * Each function is generated for a layout: `partitioned` claims message and trace ids in the id
 * lookups that keep them unique across conversations (`id-lookups.ts`), names the partitioned
 * keys as conflict targets, locks conversations one statement each, and adds the functions of the calls keyed by a message id alone
 * (`id-read-functions.ts`). Every statement of the partitioned layout's functions names the
 * conversation (or the lookup's id) it reads or writes, and none sets `plan_cache_mode`, so that
 * Citus can route each statement to one shard (see the README, "Citus"). The default layout's
 * text does not change with it.
 */

/** The names of the functions, for documentation and grants. */
export const FUNCTION_NAMES = [
  "ms_refuse",
  WRITE_FUNCTIONS.one,
  WRITE_FUNCTIONS.batch,
  "ms_put_turn_trace",
  "ms_put_turn_traces",
  ...LIFECYCLE_FUNCTION_NAMES,
  ...ID_READ_FUNCTION_NAMES,
  "ms_put_checkpoint",
  "ms_put_checkpoint_writes",
] as const;

/** Functions earlier versions installed, dropped when a store's functions are reinstalled. */
const RETIRED = ["ms_put_messages", "ms_put_message"];

/**
 * Drops every function of {@link FUNCTION_NAMES} whatever its signature, so a release may change
 * a function's parameters or result: `CREATE OR REPLACE` cannot, and would leave the old
 * overload behind.
 */
function dropFunctions(s: string): string {
  const names = [...FUNCTION_NAMES, ...RETIRED].map((n) => `'${n}'`).join(", ");
  return `DO $drop$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
            WHERE p.pronamespace = ${quoteLiteral(s)}::regnamespace AND p.proname IN (${names})
  LOOP
    EXECUTE 'DROP FUNCTION ' || f::text;
  END LOOP;
END
$drop$;`;
}

/**
 * Every function's `CREATE OR REPLACE` for a schema (a quoted identifier) of a layout, as one
 * script.
 */
export function functionsSql(schema: string, partitioned = false): string {
  const functions: ((s: string, partitioned: boolean) => string)[] = [
    dropFunctions,
    refuseFunction,
    writeMessageFunctions,
    partitionedWriteFunctions,
    putTurnTrace,
    putTurnTraces,
    ...lifecycleFunctions,
    idReadFunctions,
    putCheckpoint,
    putCheckpointWrites,
  ];
  return functions
    .map((f) => f(schema, partitioned))
    .filter((sql) => sql !== "")
    .join("\n\n");
}

/**
 * What the migrations table records for the installed functions: a SHA-256 of their script with
 * a placeholder for the schema, so one package version has one checksum per layout in every
 * schema.
 */
export function functionsChecksum(partitioned = false): string {
  const script = functionsSql("$schema", partitioned);
  return `sha256:${createHash("sha256").update(script).digest("hex")}`;
}
