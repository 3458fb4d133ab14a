import { createHash } from "node:crypto";
import { columnList, fieldNames, recordDefinition, recordFields, setList } from "./column-lists.js";
import { CONVERSATION_WRITE, MESSAGE } from "./columns.js";
import { findMovedMessage, lockId, lockIds, raiseMoved } from "./id-locks.js";
import { LIFECYCLE_FUNCTION_NAMES, lifecycleFunctions } from "./lifecycle-functions.js";
import { quoteLiteral } from "./quote.js";
import { raiseRule, SQLSTATE_MISSING_CONVERSATION } from "./sqlstates.js";
import { putTurnTraces } from "./trace-batch-function.js";
import { conflictTarget, putTurnTrace } from "./trace-function.js";

/**
 * The SQL functions behind the writes that need more than one statement's worth of logic but
 * must stay one round trip. PL/pgSQL also keeps the plans of its statements for the session, so
 * a function call is cheaper than the same SQL sent as text (see BENCHMARKS.md, Findings).
 *
 * Their column lists are derived from `columns.ts`, so their text is not frozen migration text:
 * the migration runner installs them (`CREATE OR REPLACE`) whenever their {@link functionsChecksum}
 * differs from the one recorded in the migrations table (see `migrate.ts`).
 *
 * Messages travel as the model's own JSON (`JSON.stringify` of the records core validated) and
 * are read with `jsonb_to_record(set)` keyed by the model's field names.
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

/** Which rule a message `x` of conversation `c` (with its stored version `m`) breaks, or NULL. */
function messageRule(x: string, c: string, m: string): string {
  return `CASE
    WHEN ${x}."userId" <> ${c}.user_id THEN 'message_user'
    WHEN ${x}."tenantId" IS NOT NULL AND ${x}."tenantId" IS DISTINCT FROM ${c}.tenant_id
      THEN 'message_tenant'
    WHEN ${m}.id IS NOT NULL AND ${m}.conversation_id = ${x}."conversationId"
         AND ${m}.deleted_at IS DISTINCT FROM ${x}."deletedAt" THEN 'message_deleted_at'
    WHEN ${m}.id IS NULL AND ${c}.deleted_at IS NOT NULL AND ${x}."deletedAt" IS NULL
      THEN 'conversation_deleted'
  END`;
}
const MESSAGE_RULE = messageRule("x", "c", "m");

/**
 * An upsert passing back the stored embedding while the text changed stores `NULL` (stale,
 * pending again); the tenant is the conversation's.
 */
const MESSAGE_SET = {
  embedding: `CASE WHEN m.original_content IS DISTINCT FROM EXCLUDED.original_content
      AND m.embedding = EXCLUDED.embedding THEN NULL ELSE EXCLUDED.embedding END`,
};

/**
 * `ms_put_messages(batch jsonb, ensure jsonb)`: a batch, all or nothing, `seq` drawn in array
 * order; `ensure` (or NULL) is a conversation created first unless it exists. Resolves to
 * `[[id, tenantId, embedding is null], …]` as stored.
 */
function putMessages(s: string, partitioned: boolean): string {
  // The partitioned layout locks the batch's ids, and refuses one stored in another
  // conversation before anything is written; the rules then only read the batch's own partitions,
  // which the conversations' ids name for the planner (`within`, pruning the others).
  const within = (column: string) => (partitioned ? ` AND ${column} = ANY (conv_ids)` : "");
  const ids = partitioned
    ? `
  ${lockIds(s, "messages", "SELECT x.id FROM jsonb_to_recordset(p_batch) AS x(id text)", "jsonb_array_length(p_batch)")}
  ${findMovedMessage(s)}
  IF FOUND THEN
    ${raiseMoved("bad.id", "bad.conversation_id", "bad.current")}
  END IF;`
    : "";
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_messages(p_batch jsonb, p_ensure jsonb) RETURNS jsonb
LANGUAGE plpgsql${partitioned ? " SET plan_cache_mode = force_custom_plan" : ""} AS $fn$
DECLARE
  conv_ids text[];
  conv_ts bigint[];
  locked bigint;
  written bigint;
  stored jsonb;
  bad record;${partitioned ? "\n  h integer;" : ""}
BEGIN
  IF p_ensure IS NOT NULL THEN
    INSERT INTO ${s}.conversations (
      ${columnList(CONVERSATION_WRITE, "", "      ")})
    SELECT ${recordFields(CONVERSATION_WRITE, "x", "           ")}
      FROM jsonb_to_record(p_ensure) AS x(
           ${recordDefinition(CONVERSATION_WRITE, "           ")})
    ON CONFLICT (id) DO NOTHING;
  END IF;
  SELECT array_agg(g.conversation_id ORDER BY g.conversation_id COLLATE "C"),
         array_agg(g.ts ORDER BY g.conversation_id COLLATE "C")
    INTO conv_ids, conv_ts
    FROM (SELECT x."conversationId" AS conversation_id, max(x."timestamp") AS ts
            FROM jsonb_to_recordset(p_batch) AS x("conversationId" text, "timestamp" bigint)
           GROUP BY x."conversationId") g;
  -- Lock the conversations in one order, so concurrent batches queue instead of deadlocking;
  -- the lock also keeps them from being deleted, soft-deleted or restored before this ends, so
  -- the rules checked below still hold when the rows are written.
  SELECT count(*) INTO locked FROM (
    SELECT 1 FROM ${s}.conversations c WHERE c.id = ANY (conv_ids) ORDER BY c.id FOR NO KEY UPDATE
  ) l;
  IF locked < cardinality(conv_ids) THEN
    SELECT x.id, x."conversationId" AS conversation_id INTO bad
      FROM jsonb_to_recordset(p_batch) AS x(id text, "conversationId" text)
     WHERE NOT EXISTS (SELECT 1 FROM ${s}.conversations c WHERE c.id = x."conversationId")
     LIMIT 1;
    RAISE EXCEPTION 'conversation does not exist' USING ERRCODE = '${SQLSTATE_MISSING_CONVERSATION}',
      DETAIL = jsonb_build_object('message', bad.id, 'conversation', bad.conversation_id)::text;
  END IF;${ids}
  SELECT x.id, x."conversationId" AS conversation_id, ${MESSAGE_RULE} AS rule INTO bad
    FROM jsonb_to_recordset(p_batch)
         AS x(id text, "conversationId" text, "userId" text, "tenantId" text, "deletedAt" bigint)
    JOIN ${s}.conversations c ON c.id = x."conversationId"${within("c.id")}
    LEFT JOIN ${s}.messages m ON m.id = x.id${partitioned ? ` AND m.conversation_id = x."conversationId"${within("m.conversation_id")}` : ""}
   WHERE ${MESSAGE_RULE} IS NOT NULL
   LIMIT 1;
  IF FOUND THEN
    ${raiseRule("bad.rule", { message: "bad.id", conversation: "bad.conversation_id" })}
  END IF;
  WITH w AS (
    INSERT INTO ${s}.messages AS m (
      ${columnList(MESSAGE, "", "      ")})
    SELECT ${recordFields(MESSAGE, "x", "           ", { tenantId: "c.tenant_id" })}
      FROM ROWS FROM (jsonb_to_recordset(p_batch) AS (
             ${recordDefinition(MESSAGE, "             ")}))
           WITH ORDINALITY AS x(
             ${fieldNames(MESSAGE, "             ")}, ord)
      JOIN ${s}.conversations c ON c.id = x."conversationId"${within("c.id")}
     ORDER BY x.ord -- seq (the column default) is drawn in this order: array order = receipt order
    ON CONFLICT ${conflictTarget(partitioned)} DO UPDATE SET
      ${setList(MESSAGE, "      ", MESSAGE_SET)}
    WHERE m.conversation_id = EXCLUDED.conversation_id
    RETURNING m.id, m.tenant_id, m.embedding IS NULL AS no_embedding
  )
  SELECT count(*), coalesce(jsonb_agg(jsonb_build_array(w.id, w.tenant_id, w.no_embedding)), '[]')
    INTO written, stored FROM w;
  IF written < jsonb_array_length(p_batch) THEN
    ${findMovedMessage(s)}
    ${raiseMoved("bad.id", "bad.conversation_id", "bad.current")}
  END IF;
  UPDATE ${s}.conversations c SET last_message_at = u.ts
    FROM unnest(conv_ids, conv_ts) AS u(id, ts)
   WHERE c.id = u.id${within("c.id")} AND (c.last_message_at IS NULL OR c.last_message_at < u.ts);
  RETURN stored;
END
$fn$;`;
}

/**
 * `ms_put_message(jsonb)`: one message (every agent turn) without a recordset, sort or
 * aggregate; resolves like `ms_put_messages`.
 */
function putMessage(s: string, partitioned: boolean): string {
  // The partitioned layout locks the id, reads the stored message in its own partition and, only
  // when it is not there, looks for it in the others (found: it would move).
  const own = partitioned ? ' AND m0.conversation_id = x."conversationId"' : "";
  const elsewhere = partitioned
    ? `
  IF NOT FOUND THEN
    SELECT m0.conversation_id INTO moved_from FROM ${s}.messages m0 WHERE m0.id = x.id LIMIT 1;
    IF FOUND THEN
      ${raiseMoved("x.id", 'x."conversationId"', "moved_from")}
    END IF;
  END IF;`
    : "";
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_message(p_message jsonb) RETURNS jsonb
LANGUAGE plpgsql${partitioned ? " SET plan_cache_mode = force_generic_plan" : ""} AS $fn$
DECLARE
  x record;
  conv record;
  old record;
  rule text;
  stored jsonb;${partitioned ? "\n  moved_from text;" : ""}
BEGIN
  SELECT * INTO x FROM jsonb_to_record(p_message) AS r(
    ${recordDefinition(MESSAGE, "    ")});
  -- Same lock as ms_put_messages: the conversation cannot be deleted before this statement ends.
  SELECT c0.user_id, c0.tenant_id, c0.deleted_at INTO conv
    FROM ${s}.conversations c0 WHERE c0.id = x."conversationId" FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'conversation does not exist' USING ERRCODE = '${SQLSTATE_MISSING_CONVERSATION}',
      DETAIL = jsonb_build_object('message', x.id, 'conversation', x."conversationId")::text;
  END IF;${partitioned ? `\n  ${lockId(s, "messages", "x.id")}` : ""}
  SELECT m0.id, m0.conversation_id, m0.deleted_at INTO old
    FROM ${s}.messages m0 WHERE m0.id = x.id${own};${elsewhere}
  rule := ${messageRule("x", "conv", "old")};
  IF rule IS NOT NULL THEN
    ${raiseRule("rule", { message: "x.id", conversation: 'x."conversationId"' })}
  END IF;
  INSERT INTO ${s}.messages AS m (
    ${columnList(MESSAGE, "", "    ")})
  VALUES (
    ${recordFields(MESSAGE, "x", "    ", { tenantId: "conv.tenant_id" })})
  ON CONFLICT ${conflictTarget(partitioned)} DO UPDATE SET
    ${setList(MESSAGE, "    ", MESSAGE_SET)}
  WHERE m.conversation_id = EXCLUDED.conversation_id
  RETURNING jsonb_build_array(jsonb_build_array(m.id, m.tenant_id, m.embedding IS NULL)) INTO stored;
  IF NOT FOUND THEN
    ${raiseMoved("x.id", 'x."conversationId"', "old.conversation_id")}
  END IF;
  UPDATE ${s}.conversations c0 SET last_message_at = x."timestamp"
   WHERE c0.id = x."conversationId"
     AND (c0.last_message_at IS NULL OR c0.last_message_at < x."timestamp");
  RETURN stored;
END
$fn$;`;
}

/** The names of the functions, for documentation and grants. */
export const FUNCTION_NAMES = [
  "ms_put_messages",
  "ms_put_message",
  "ms_put_turn_trace",
  "ms_put_turn_traces",
  ...LIFECYCLE_FUNCTION_NAMES,
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
    putMessages,
    putMessage,
    putTurnTrace,
    putTurnTraces,
    ...lifecycleFunctions,
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
