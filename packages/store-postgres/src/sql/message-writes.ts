import { recordDefinition } from "./column-lists.js";
import { MESSAGE } from "./columns.js";
import { quoteIdent } from "./quote.js";
import { sessionTimestamps } from "./session-timestamps.js";
import { refuse } from "./sqlstates.js";
import { conflictTarget } from "./trace-function.js";

/**
 * The default layout's message writes (`storeMessages`, `storeSessionMessages`, and the messages
 * of a checkpoint put): `ms_write_message` (one message, a typed parameter per column) and
 * `ms_write_messages` (a batch, read once with `jsonb_to_recordset`), each one upsert for all of
 * its messages. The partitioned layout's `ms_write_messages` (`partitioned-writes.ts`) is this
 * upsert with the id claims of its lookups.
 * They keep every rule and raise the same refusals (`ms_refuse`, mapped in `refusals.ts`):
 *
 * - the conversations are locked (one message: by the update of its `last_message_at`; a batch:
 *   in id order, so that concurrent batches queue instead of deadlocking), so they cannot be
 *   deleted, soft-deleted or restored before the write ends; a missing one refuses the write;
 * - a message's owners must be its conversation's; a new message cannot enter a soft-deleted
 *   conversation;
 * - a stored id is checked in the conflict's `WHERE`, which sees the stored row as committed and
 *   locked: another owner's message, a move to another conversation, a change of `deletedAt`;
 * - `seq` is drawn in array order (receipt order); the tenant is the conversation's; an upsert
 *   that passes back the stored embedding with changed text stores `NULL` (stale, pending again).
 *
 * Every refusal raises, so a call stores all of its messages or none. Each returns one row per
 * message as stored: `stored_id`, `stored_tenant_id`, `pending` (no embedding), `stored_timestamp`.
 * Functions rather than the statements themselves, because PL/pgSQL keeps their plans for the
 * server session, which a connection without prepared statements (a transaction-mode pooler)
 * also gets. Why JSON for a batch and not a typed array per column: bench/FINDINGS.md, "#26".
 */

/** The function names: one message, a batch. */
export const WRITE_FUNCTIONS = { one: "ms_write_message", batch: "ms_write_messages" } as const;

export const NAMES = MESSAGE.map((f) => quoteIdent(f.column.name)).join(", ");
export const RESULT =
  "TABLE (stored_id text, stored_tenant_id text, pending boolean, stored_timestamp bigint)";

/**
 * The rules on the incoming message (`x(column)`: its value of a column) and its conversation `c`
 * (NULLs when it is missing). `absent` is the condition "the id is stored nowhere" (the default
 * layout's own); `more`, rules checked last (the partitioned layout's, on an id stored in another
 * conversation).
 */
export function incomingRules(
  s: string,
  x: (column: string) => string,
  absent = `NOT EXISTS (SELECT 1 FROM ${s}.messages m0 WHERE m0.id = ${x("id")})`,
  more = "",
): string {
  const ids = { message: x("id"), conversation: x("conversation_id") };
  return `CASE
    WHEN c.id IS NULL THEN ${refuse(s, "'missing_conversation'", ids)}
    WHEN ${x("user_id")} <> c.user_id THEN ${refuse(s, "'message_user'", ids)}
    WHEN ${x("tenant_id")} IS NOT NULL AND ${x("tenant_id")} IS DISTINCT FROM c.tenant_id
      THEN ${refuse(s, "'message_tenant'", ids)}
    WHEN c.deleted_at IS NOT NULL AND ${x("deleted_at")} IS NULL AND ${absent}
      THEN ${refuse(s, "'conversation_deleted'", ids)}${more}
    ELSE true END`;
}

/** The rules on the stored row `m` an incoming message (`EXCLUDED`) conflicts with. */
function storedRules(s: string): string {
  const ids = { message: "m.id", conversation: "EXCLUDED.conversation_id" };
  return `CASE
    WHEN m.conversation_id <> EXCLUDED.conversation_id
         AND (m.user_id <> EXCLUDED.user_id OR m.tenant_id IS DISTINCT FROM EXCLUDED.tenant_id)
      THEN ${refuse(s, "'message_owner'", ids)}
    WHEN m.conversation_id <> EXCLUDED.conversation_id
      THEN ${refuse(s, "'moved_message'", { ...ids, current: "m.conversation_id" })}
    WHEN m.deleted_at IS DISTINCT FROM EXCLUDED.deleted_at
      THEN ${refuse(s, "'message_deleted_at'", ids)}
    ELSE true END`;
}

const SET = MESSAGE.filter((f) => f.column.name !== "id")
  .map((f) => {
    const name = quoteIdent(f.column.name);
    if (f.column.name !== "embedding") return `${name} = EXCLUDED.${name}`;
    return `${name} = CASE WHEN m.original_content IS DISTINCT FROM EXCLUDED.original_content
        AND m.embedding = EXCLUDED.embedding THEN NULL ELSE EXCLUDED.embedding END`;
  })
  .join(",\n    ");

/** The message columns' values from `x(column)`, the tenant being the conversation's. */
export function values(x: (column: string) => string): string {
  return MESSAGE.map((f) =>
    f.column.name === "tenant_id" ? "c.tenant_id" : x(f.column.name),
  ).join(", ");
}

/** The upsert's conflict clause and result, the same for one message and a batch. */
export function upsert(s: string, partitioned = false): string {
  return `ON CONFLICT ${conflictTarget(partitioned)} DO UPDATE SET
    ${SET}
   WHERE ${storedRules(s)}
  RETURNING m.id, m.tenant_id, m.embedding IS NULL, m."timestamp";`;
}

/**
 * One message, two statements: the update of its conversation's activity locks the conversation
 * and reads its owners into `c` (NULLs when it is missing), then the upsert.
 */
function writeOne(s: string): string {
  const x = (column: string) => `p_${column}`;
  const params = MESSAGE.map((f) => `${x(f.column.name)} ${f.column.type}`).join(", ");
  return `CREATE OR REPLACE FUNCTION ${s}.${WRITE_FUNCTIONS.one}(${params})
RETURNS ${RESULT} LANGUAGE plpgsql AS $fn$
DECLARE
  c record;
BEGIN
  UPDATE ${s}.conversations c0 SET last_message_at = GREATEST(c0.last_message_at, p_timestamp)
   WHERE c0.id = p_conversation_id
  RETURNING c0.id, c0.user_id, c0.tenant_id, c0.deleted_at INTO c;
  RETURN QUERY
  INSERT INTO ${s}.messages AS m (${NAMES})
  SELECT ${values(x)}
   WHERE ${incomingRules(s, x)}
  ${upsert(s)}
END
$fn$;`;
}

/**
 * A batch, one statement: the batch read once, its conversations locked in id order and their
 * activity advanced, then the upsert in array order. For `storeSessionMessages`, `p_session` (the
 * conversation, else NULL) and `p_now` first give the batch its timestamps under the
 * conversation's lock (`sessionTimestamps`).
 */
function writeBatch(s: string): string {
  const x = (column: string) => `x.${quoteIdent(column)}`;
  return `CREATE OR REPLACE FUNCTION ${s}.${WRITE_FUNCTIONS.batch}(
  p_batch jsonb, p_session jsonb, p_now bigint)
RETURNS ${RESULT} LANGUAGE plpgsql AS $fn$
DECLARE
  activity bigint;
  shift bigint;
  sess record;
BEGIN
  ${sessionTimestamps(s)}
  RETURN QUERY
  WITH x AS (
    SELECT * FROM ROWS FROM (jsonb_to_recordset(p_batch) AS (
      ${recordDefinition(MESSAGE, "      ")}))
    WITH ORDINALITY AS x(${NAMES}, ord)
  ), conv AS (
    SELECT c.id, c.user_id, c.tenant_id, c.deleted_at FROM ${s}.conversations c
     WHERE c.id IN (SELECT DISTINCT x.conversation_id FROM x)
     ORDER BY c.id FOR NO KEY UPDATE
  ), activity AS (
    UPDATE ${s}.conversations c SET last_message_at = g.ts
      FROM (SELECT x.conversation_id, max(x."timestamp") AS ts FROM x GROUP BY x.conversation_id) g
      JOIN conv ON conv.id = g.conversation_id
     WHERE c.id = g.conversation_id AND (c.last_message_at IS NULL OR c.last_message_at < g.ts)
  )
  INSERT INTO ${s}.messages AS m (${NAMES})
  SELECT ${values(x)}
    FROM x LEFT JOIN conv c ON c.id = x.conversation_id
   WHERE ${incomingRules(s, x)}
   ORDER BY x.ord -- seq (the column default) is drawn in this order: array order = receipt order
  ${upsert(s)}
END
$fn$;`;
}

/** Both functions for schema `s`; the partitioned layout's are in `partitioned-writes.ts` (`""`). */
export function writeMessageFunctions(s: string, partitioned: boolean): string {
  return partitioned ? "" : `${writeOne(s)}\n\n${writeBatch(s)}`;
}

const CALL_RESULT = `stored_id AS id, stored_tenant_id AS tenant_id, pending, stored_timestamp AS "timestamp"`;

/** The call of `ms_write_message`: `$1…$n`, one typed parameter per column in column order. */
export function writeMessageCall(s: string): string {
  const params = MESSAGE.map((f, i) => `$${i + 1}::${f.column.type}`).join(", ");
  return `SELECT ${CALL_RESULT} FROM ${s}.${WRITE_FUNCTIONS.one}(${params})`;
}

/**
 * The call of `ms_write_messages`: `$1`, the batch as the model's JSON (`batchParam`); `$2`, `$3`:
 * for `storeSessionMessages`, the conversation to create if missing and the call's `now` (else
 * NULLs).
 */
export function writeMessagesCall(s: string): string {
  return `SELECT ${CALL_RESULT} FROM ${s}.${WRITE_FUNCTIONS.batch}($1::jsonb, $2::jsonb, $3::bigint)`;
}
