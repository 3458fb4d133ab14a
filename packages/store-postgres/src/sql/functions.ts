import { createHash } from "node:crypto";
import {
  columnList,
  fieldNames,
  parameterDefinitions,
  parameterNames,
  recordDefinition,
  recordFields,
  setList,
} from "./column-lists.js";
import { MESSAGE, TURN_TRACE } from "./columns.js";

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
 */

/** SQLSTATE raised when a message names a conversation that does not exist. */
export const SQLSTATE_MISSING_CONVERSATION = "MS001";
/** SQLSTATE raised when an upsert would move a message to another conversation. */
export const SQLSTATE_MOVED_MESSAGE = "MS002";

/** `ms_put_messages(jsonb)`: a batch, all or nothing, `seq` drawn in array order. */
function putMessages(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_messages(p_batch jsonb) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  conv_ids text[];
  conv_ts bigint[];
  locked bigint;
  written bigint;
  bad record;
BEGIN
  SELECT array_agg(g.conversation_id ORDER BY g.conversation_id COLLATE "C"),
         array_agg(g.ts ORDER BY g.conversation_id COLLATE "C")
    INTO conv_ids, conv_ts
    FROM (SELECT x."conversationId" AS conversation_id, max(x."timestamp") AS ts
            FROM jsonb_to_recordset(p_batch) AS x("conversationId" text, "timestamp" bigint)
           GROUP BY x."conversationId") g;
  -- Lock the conversations in one order, so concurrent batches queue instead of deadlocking;
  -- the lock also keeps them from being deleted before this statement ends.
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
  END IF;
  INSERT INTO ${s}.messages AS m (
    ${columnList(MESSAGE, "", "    ")})
  SELECT ${recordFields(MESSAGE, "x", "         ")}
    FROM ROWS FROM (jsonb_to_recordset(p_batch) AS (
           ${recordDefinition(MESSAGE, "           ")}))
         WITH ORDINALITY AS x(
           ${fieldNames(MESSAGE, "           ")}, ord)
   ORDER BY x.ord -- seq (the column default) is drawn in this order: array order = receipt order
  ON CONFLICT (id) DO UPDATE SET
    ${setList(MESSAGE, "    ")}
  WHERE m.conversation_id = EXCLUDED.conversation_id;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written < jsonb_array_length(p_batch) THEN
    SELECT x.id, x."conversationId" AS conversation_id, m.conversation_id AS current INTO bad
      FROM jsonb_to_recordset(p_batch) AS x(id text, "conversationId" text)
      JOIN ${s}.messages m ON m.id = x.id
     WHERE m.conversation_id <> x."conversationId"
     LIMIT 1;
    RAISE EXCEPTION 'message cannot move to another conversation'
      USING ERRCODE = '${SQLSTATE_MOVED_MESSAGE}',
      DETAIL = jsonb_build_object('message', bad.id, 'conversation', bad.conversation_id,
                                  'current', bad.current)::text;
  END IF;
  UPDATE ${s}.conversations c SET last_message_at = u.ts
    FROM unnest(conv_ids, conv_ts) AS u(id, ts)
   WHERE c.id = u.id AND (c.last_message_at IS NULL OR c.last_message_at < u.ts);
END
$fn$;`;
}

/** `ms_put_message(jsonb)`: one message (every agent turn) without a recordset, sort or aggregate. */
function putMessage(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_message(p_message jsonb) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  x record;
  written bigint;
  current_conversation text;
BEGIN
  SELECT * INTO x FROM jsonb_to_record(p_message) AS r(
    ${recordDefinition(MESSAGE, "    ")});
  -- Same lock as ms_put_messages: the conversation cannot be deleted before this statement ends.
  PERFORM 1 FROM ${s}.conversations c WHERE c.id = x."conversationId" FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'conversation does not exist' USING ERRCODE = '${SQLSTATE_MISSING_CONVERSATION}',
      DETAIL = jsonb_build_object('message', x.id, 'conversation', x."conversationId")::text;
  END IF;
  INSERT INTO ${s}.messages AS m (
    ${columnList(MESSAGE, "", "    ")})
  VALUES (
    ${recordFields(MESSAGE, "x", "    ")})
  ON CONFLICT (id) DO UPDATE SET
    ${setList(MESSAGE, "    ")}
  WHERE m.conversation_id = EXCLUDED.conversation_id;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written = 0 THEN
    SELECT m.conversation_id INTO current_conversation FROM ${s}.messages m WHERE m.id = x.id;
    RAISE EXCEPTION 'message cannot move to another conversation'
      USING ERRCODE = '${SQLSTATE_MOVED_MESSAGE}',
      DETAIL = jsonb_build_object('message', x.id, 'conversation', x."conversationId",
                                  'current', current_conversation)::text;
  END IF;
  UPDATE ${s}.conversations c SET last_message_at = x."timestamp"
   WHERE c.id = x."conversationId"
     AND (c.last_message_at IS NULL OR c.last_message_at < x."timestamp");
END
$fn$;`;
}

/**
 * `ms_put_turn_trace(p_id, p_message_id, …)`: the trace upsert, one parameter per column. It
 * writes only if the message exists in the trace's conversation and reports what it found, so a
 * refusal costs no second query; the unique `message_id` still raises 23505.
 */
function putTurnTrace(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_turn_trace(
  ${parameterDefinitions(TURN_TRACE)},
  OUT message_conversation_id text, OUT written bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
  SELECT m.conversation_id INTO message_conversation_id
    FROM ${s}.messages m WHERE m.id = p_message_id;
  -- Refused (nothing written) when the message is missing or in another conversation; the
  -- caller reports which from message_conversation_id.
  IF message_conversation_id IS DISTINCT FROM p_conversation_id THEN
    written := 0;
    RETURN;
  END IF;
  INSERT INTO ${s}.turn_traces AS t (
    ${columnList(TURN_TRACE, "", "    ")})
  VALUES (
    ${parameterNames(TURN_TRACE, "    ")})
  ON CONFLICT (id) DO UPDATE SET
    ${setList(TURN_TRACE, "    ")};
  written := 1;
END
$fn$;`;
}

/** `ms_delete_user_data(text)`: a user's conversations, messages and traces, with exact counts. */
function deleteUserData(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_delete_user_data(p_user_id text)
RETURNS TABLE (deleted_conversations bigint, deleted_messages bigint, deleted_turn_traces bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  ids text[];
  n_conv bigint;
  n_msg bigint;
  n_tt bigint;
BEGIN
  -- Locking the conversations first stops new messages and traces from arriving, so the
  -- counts below are exactly what is removed.
  SELECT coalesce(array_agg(l.id), '{}') INTO ids FROM (
    SELECT c.id FROM ${s}.conversations c WHERE c.user_id = p_user_id ORDER BY c.id FOR UPDATE
  ) l;
  DELETE FROM ${s}.turn_traces t WHERE t.conversation_id = ANY (ids);
  GET DIAGNOSTICS n_tt = ROW_COUNT;
  DELETE FROM ${s}.messages m WHERE m.conversation_id = ANY (ids);
  GET DIAGNOSTICS n_msg = ROW_COUNT;
  DELETE FROM ${s}.conversations c WHERE c.id = ANY (ids);
  GET DIAGNOSTICS n_conv = ROW_COUNT;
  RETURN QUERY SELECT n_conv, n_msg, n_tt;
END
$fn$;`;
}

/** The names of the functions, for documentation and grants. */
export const FUNCTION_NAMES = [
  "ms_put_messages",
  "ms_put_message",
  "ms_put_turn_trace",
  "ms_delete_user_data",
] as const;

/** Every function's `CREATE OR REPLACE` for a schema (a quoted identifier), as one script. */
export function functionsSql(schema: string): string {
  return [putMessages, putMessage, putTurnTrace, deleteUserData].map((f) => f(schema)).join("\n\n");
}

/**
 * What the migrations table records for the installed functions: a SHA-256 of their script with
 * a placeholder for the schema, so one package version has one checksum in every schema.
 */
export function functionsChecksum(): string {
  return `sha256:${createHash("sha256").update(functionsSql("$schema")).digest("hex")}`;
}
