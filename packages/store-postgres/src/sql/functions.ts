import { createHash } from "node:crypto";
import { putCheckpoint, putCheckpointWrites } from "./checkpoint-functions.js";
import { LIFECYCLE_FUNCTION_NAMES, lifecycleFunctions } from "./lifecycle-functions.js";
import { putMessage, putMessages } from "./message-functions.js";
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
 * Each function is generated for a layout: `partitioned` adds the id locks and lookups that keep
 * ids unique across conversations (`id-locks.ts`), names the partitioned keys as conflict
 * targets, and plans the single-record functions' statements once per session (`plan_cache_mode
 * = force_generic_plan`, pruning partitions at run time): PostgreSQL's plan cache would otherwise
 * keep re-planning them over the partitions on every call (turns and traces 1.5–2× slower in the
 * bench's `scale` command). The batch's are planned with their values on every call
 * (`force_custom_plan`, whatever the role sets): its conversations travel as an array, which
 * prunes only at plan time. The default layout's text does not change with it.
 */

/** The names of the functions, for documentation and grants. */
export const FUNCTION_NAMES = [
  "ms_refuse",
  "ms_put_messages",
  "ms_put_message",
  "ms_put_turn_trace",
  "ms_put_turn_traces",
  ...LIFECYCLE_FUNCTION_NAMES,
  "ms_put_checkpoint",
  "ms_put_checkpoint_writes",
] as const;

/**
 * Drops every function of {@link FUNCTION_NAMES} whatever its signature, so a release may change
 * a function's parameters or result: `CREATE OR REPLACE` cannot, and would leave the old
 * overload behind.
 */
function dropFunctions(s: string): string {
  const names = FUNCTION_NAMES.map((n) => `'${n}'`).join(", ");
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
    putMessages,
    putMessage,
    putTurnTrace,
    putTurnTraces,
    ...lifecycleFunctions,
    putCheckpoint,
    putCheckpointWrites,
  ];
  return functions.map((f) => f(schema, partitioned)).join("\n\n");
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
