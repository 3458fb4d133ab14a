import { columnList, recordDefinition, recordFields, setList } from "./column-lists.js";
import { MESSAGE } from "./columns.js";
import { insertConversationFrom } from "./conversation-insert.js";
import { claimId, raiseMoved, takeOver } from "./id-lookups.js";
import { raiseRule, SQLSTATE_MISSING_CONVERSATION } from "./sqlstates.js";
import { conflictTarget } from "./trace-function.js";

/**
 * The partitioned layout's message writes: `ms_put_messages` (a batch, and
 * `storeSessionMessages`) and `ms_put_message` (one message), which claim each id in the id
 * lookups message by message. Installed with the other functions (see `functions.ts`); the
 * default layout writes through `ms_write_message(s)` instead (`message-writes.ts`), with the
 * session timestamps of {@link sessionTimestamps}.
 *
 * Messages travel as the model's own JSON (`JSON.stringify` of the records core validated) and
 * are read with `jsonb_to_record(set)` keyed by the model's field names.
 */

/**
 * Which rule a message `x` of conversation `c` (with `m`, its id as stored, or NULLs) breaks, or
 * NULL. The owner rules come first, so that a write that breaks one of them and a soft-delete
 * rule is refused as the owner refusal (`errors.ts` maps them): the message's owners are not its
 * conversation's (`message_user`, `message_tenant`), or its id is stored in a conversation of
 * another owner (`message_owner`). A move between two conversations of one owner is not a rule
 * here: the upsert refuses it (MS002).
 */
export function messageRule(x: string, c: string, m: string): string {
  return `CASE
    WHEN ${x}."userId" <> ${c}.user_id THEN 'message_user'
    WHEN ${x}."tenantId" IS NOT NULL AND ${x}."tenantId" IS DISTINCT FROM ${c}.tenant_id
      THEN 'message_tenant'
    WHEN ${m}.id IS NOT NULL AND ${m}.conversation_id <> ${x}."conversationId"
         AND (${m}.user_id <> ${c}.user_id OR ${m}.tenant_id IS DISTINCT FROM ${c}.tenant_id)
      THEN 'message_owner'
    WHEN ${m}.id IS NOT NULL AND ${m}.conversation_id = ${x}."conversationId"
         AND ${m}.deleted_at IS DISTINCT FROM ${x}."deletedAt" THEN 'message_deleted_at'
    WHEN ${m}.id IS NULL AND ${c}.deleted_at IS NOT NULL AND ${x}."deletedAt" IS NULL
      THEN 'conversation_deleted'
  END`;
}

/**
 * An upsert passing back the stored embedding while the text changed stores `NULL` (stale,
 * pending again); the tenant is the conversation's.
 */
const MESSAGE_SET = {
  embedding: `CASE WHEN m.original_content IS DISTINCT FROM EXCLUDED.original_content
      AND m.embedding = EXCLUDED.embedding THEN NULL ELSE EXCLUDED.embedding END`,
};

/**
 * `storeSessionMessages`' part of `ms_put_messages`: creates the conversation `p_session` unless
 * it exists, locks it, and gives the batch its timestamps under that lock: a message whose id is
 * stored in the conversation keeps its stored timestamp; the others (core sent `p_now + i`) move
 * to `start + i`, `start = greatest(p_now, last_activity_at + 1)` (`p_now` for a new
 * conversation). Concurrent sessions of one conversation queue on the lock, so they never
 * interleave. A new timestamp past `Number.MAX_SAFE_INTEGER` (the activity is at the end of time)
 * refuses the write. Every statement names the conversation (one partition in the partitioned
 * layout).
 */
export function sessionTimestamps(s: string): string {
  return `IF p_session IS NOT NULL THEN
    ${insertConversationFrom(s, "p_session")}
    IF NOT FOUND THEN
      SELECT c.last_activity_at INTO activity FROM ${s}.conversations c
       WHERE c.id = p_session->>'id' FOR NO KEY UPDATE;
      shift := greatest(p_now, activity + 1) - p_now;
      SELECT jsonb_agg(CASE WHEN m.id IS NULL
                            THEN x.value || jsonb_build_object('timestamp', (x.value->>'timestamp')::bigint + shift)
                            ELSE x.value || jsonb_build_object('timestamp', m."timestamp") END
                       ORDER BY x.ord)
        INTO p_batch
        FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS x(value, ord)
        LEFT JOIN ${s}.messages m
               ON m.id = x.value->>'id' AND m.conversation_id = p_session->>'id';
      IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_batch) AS x(value)
                  WHERE (x.value->>'timestamp')::bigint > ${Number.MAX_SAFE_INTEGER}) THEN
        ${raiseRule("'session_end_of_time'", { conversation: "p_session->>'id'", activity: "activity::text" })}
      END IF;
    END IF;
  END IF;`;
}

/**
 * The partitioned layout's `ms_put_messages(batch jsonb, session jsonb, now bigint)`: a batch,
 * all or nothing, `seq` drawn in array order; `session` (or NULL) is the conversation of a
 * `storeSessionMessages` call (see {@link sessionTimestamps}). Resolves to `[[id, tenantId,
 * embedding is null, timestamp], …]` as stored. The default layout writes through
 * `ms_write_messages` (`message-writes.ts`) instead, and has neither function.
 */
export function putMessages(s: string, partitioned: boolean): string {
  return partitioned ? putMessagesOneByOne(s) : "";
}

/**
 * The partitioned layout's `ms_put_messages`: locks the batch's conversations one statement each,
 * in id order (so concurrent batches queue instead of deadlocking, and each statement names its
 * conversation: one partition, one shard on Citus), then writes each message in array order
 * with `ms_put_message` (so `seq` follows the array). A refused message raises, and the whole
 * call, already written messages included, rolls back.
 */
function putMessagesOneByOne(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_messages(p_batch jsonb, p_session jsonb, p_now bigint)
RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  stored jsonb := '[]';
  activity bigint;
  shift bigint;
  conversation text;
  bad record;
  sess record;
  e jsonb;
BEGIN
  ${sessionTimestamps(s)}
  FOR conversation IN SELECT DISTINCT x."conversationId" COLLATE "C"
                        FROM jsonb_to_recordset(p_batch) AS x("conversationId" text)
                       ORDER BY 1 LOOP
    PERFORM 1 FROM ${s}.conversations c WHERE c.id = conversation FOR NO KEY UPDATE;
    IF NOT FOUND THEN
      SELECT x.id, x."conversationId" AS conversation_id INTO bad
        FROM jsonb_to_recordset(p_batch) AS x(id text, "conversationId" text)
       WHERE x."conversationId" = conversation LIMIT 1;
      RAISE EXCEPTION 'conversation does not exist' USING ERRCODE = '${SQLSTATE_MISSING_CONVERSATION}',
        DETAIL = jsonb_build_object('message', bad.id, 'conversation', bad.conversation_id)::text;
    END IF;
  END LOOP;
  FOR e IN SELECT x.value FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS x(value, ord)
            ORDER BY x.ord LOOP
    stored := stored || ${s}.ms_put_message(e);
  END LOOP;
  RETURN stored;
END
$fn$;`;
}

/**
 * The partitioned layout's `ms_put_message(jsonb)`: one message (every agent turn) without a
 * recordset, sort or aggregate; resolves like `ms_put_messages`. It claims the id in
 * `message_ids` (`id-lookups.ts`) and reads the stored message in its own conversation's
 * partition; only when the lookup places the id in another conversation does it read that one
 * (found: refused). Every statement names the conversation or the id it reads, so Citus routes
 * each to one shard. `""` for the default layout.
 */
export function putMessage(s: string, partitioned: boolean): string {
  if (!partitioned) return "";
  const claim = `
  ${claimId(s, "messages", "x.id", 'x."conversationId"')}
  IF home <> x."conversationId" THEN
    -- The id's conversation, locked: a write of the id there is committed or rolled back.
    PERFORM 1 FROM ${s}.conversations c0 WHERE c0.id = home FOR NO KEY UPDATE;
    SELECT m0.id, m0.conversation_id, m0.deleted_at, m0.user_id, m0.tenant_id INTO old
      FROM ${s}.messages m0 WHERE m0.id = x.id AND m0.conversation_id = home;
    IF FOUND THEN
      rule := ${messageRule("x", "conv", "old")};
      IF rule IS NOT NULL THEN
        ${raiseRule("rule", { message: "x.id", conversation: 'x."conversationId"' })}
      END IF;
      ${raiseMoved("x.id", 'x."conversationId"', "old.conversation_id")}
    END IF;
    ${takeOver(s, "messages", "x.id", 'x."conversationId"')}
  END IF;`;
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_message(p_message jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $fn$
DECLARE
  x record;
  conv record;
  old record;
  rule text;
  w record;
  home text;
BEGIN
  SELECT * INTO x FROM jsonb_to_record(p_message) AS r(
    ${recordDefinition(MESSAGE, "    ")});
  -- Same lock as ms_put_messages: the conversation cannot be deleted before this statement ends.
  SELECT c0.user_id, c0.tenant_id, c0.deleted_at INTO conv
    FROM ${s}.conversations c0 WHERE c0.id = x."conversationId" FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'conversation does not exist' USING ERRCODE = '${SQLSTATE_MISSING_CONVERSATION}',
      DETAIL = jsonb_build_object('message', x.id, 'conversation', x."conversationId")::text;
  END IF;${claim}
  SELECT m0.id, m0.conversation_id, m0.deleted_at, m0.user_id, m0.tenant_id INTO old
    FROM ${s}.messages m0 WHERE m0.id = x.id AND m0.conversation_id = x."conversationId";
  rule := ${messageRule("x", "conv", "old")};
  IF rule IS NOT NULL THEN
    ${raiseRule("rule", { message: "x.id", conversation: 'x."conversationId"' })}
  END IF;
  -- RETURNING plain columns (Citus refuses a function there): the facts are built below.
  INSERT INTO ${s}.messages AS m (
    ${columnList(MESSAGE, "", "    ")})
  VALUES (
    ${recordFields(MESSAGE, "x", "    ", { tenantId: "conv.tenant_id" })})
  ON CONFLICT ${conflictTarget(true)} DO UPDATE SET
    ${setList(MESSAGE, "    ", MESSAGE_SET)}
  WHERE m.conversation_id = EXCLUDED.conversation_id
  RETURNING m.id, m.tenant_id, m.embedding IS NULL AS pending, m."timestamp" INTO w;
  IF NOT FOUND THEN
    ${raiseMoved("x.id", 'x."conversationId"', "old.conversation_id")}
  END IF;
  UPDATE ${s}.conversations c0 SET last_message_at = x."timestamp"
   WHERE c0.id = x."conversationId"
     AND (c0.last_message_at IS NULL OR c0.last_message_at < x."timestamp");
  RETURN jsonb_build_array(jsonb_build_array(w.id, w.tenant_id, w.pending, w."timestamp"));
END
$fn$;`;
}
