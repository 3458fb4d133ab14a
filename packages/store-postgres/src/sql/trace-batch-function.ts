import { columnList, fieldNames, recordDefinition, recordFields, setList } from "./column-lists.js";
import { TURN_TRACE } from "./columns.js";
import { raiseRule } from "./sqlstates.js";
import {
  conflictTarget,
  type TraceRuleInputs,
  traceDetail,
  traceRefusal,
  traceRule,
} from "./trace-function.js";

/**
 * `ms_put_turn_traces(batch jsonb)`: `storeTurnTraces` in one statement (issue #17: a migration
 * of 200,000 traces made 200,000 calls of `ms_put_turn_trace`). The same rules as that function,
 * checked for the whole batch before anything is written, so a refused batch stores nothing;
 * installed with the other functions (see `functions.ts`).
 *
 * Traces travel as the model's JSON (`JSON.stringify` of core's validated records), read with
 * `jsonb_to_recordset` keyed by field name, as `ms_write_messages` reads messages.
 *
 * Resolves to `[[id, userId, tenantId], …]` as stored. The first trace (in array order) that
 * breaks a rule raises MS003 like the single-trace function, nothing written; a second trace for
 * a message raises 23505 on the unique `message_id`.
 *
 * The partitioned layout's is {@link putTurnTracesOneByOne}.
 */

/** The batch's trace `x` with its conversation `c` (by the trace's `conversationId`). */
const BATCH: TraceRuleInputs = {
  userId: 'x."userId"',
  tenantId: 'x."tenantId"',
  messageId: 'x."messageId"',
  deletedAt: 'x."deletedAt"',
  conversationId: "c.id",
  ownerUserId: "c.user_id",
  ownerTenantId: "c.tenant_id",
};

/**
 * The rule the batch's trace `x` breaks, or NULL: with its message `m` in its conversation (NULLs
 * when it is not there), the message `f` found elsewhere and the trace `o` stored under its id.
 */
const TRACE_RULE = `CASE WHEN m.id IS NULL THEN ${traceRefusal(BATCH, "f")}
    ELSE ${traceRule(BATCH, "o", "m.deleted_at")} END`;

/**
 * The partitioned layout's function: locks the batch's conversations one statement each, in id
 * order (concurrent batches queue instead of deadlocking; each statement names one conversation,
 * one shard on Citus), then writes each trace in array order with `ms_put_turn_trace`, whose
 * statements name their conversation or id (`id-lookups.ts`). The first refused trace raises and
 * the whole call rolls back; a rule is thus checked once the traces before it are written, so a
 * batch that both repeats a message (23505) and breaks a rule later reports the first in array
 * order.
 */
function putTurnTracesOneByOne(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_turn_traces(p_batch jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $fn$
DECLARE
  stored jsonb := '[]';
  conversation text;
  x record;
  w record;
BEGIN
  FOR conversation IN SELECT DISTINCT r."conversationId" COLLATE "C"
                        FROM jsonb_to_recordset(p_batch) AS r("conversationId" text)
                       ORDER BY 1 LOOP
    PERFORM 1 FROM ${s}.conversations c WHERE c.id = conversation FOR NO KEY UPDATE;
  END LOOP;
  FOR x IN SELECT * FROM ROWS FROM (jsonb_to_recordset(p_batch) AS (
             ${recordDefinition(TURN_TRACE, "             ")}))
           WITH ORDINALITY AS r(
             ${fieldNames(TURN_TRACE, "             ")}, ord)
           ORDER BY r.ord LOOP
    SELECT u.stored_user_id, u.stored_tenant_id INTO w FROM ${s}.ms_put_turn_trace(
      ${recordFields(TURN_TRACE, "x", "      ")}) u;
    stored := stored || jsonb_build_array(jsonb_build_array(x.id, w.stored_user_id, w.stored_tenant_id));
  END LOOP;
  RETURN stored;
END
$fn$;`;
}

/** The function's `CREATE OR REPLACE` for a schema (a quoted identifier). */
export function putTurnTraces(s: string, partitioned: boolean): string {
  if (partitioned) return putTurnTracesOneByOne(s);
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_turn_traces(p_batch jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $fn$
DECLARE
  bad record;
  written bigint;
  stored jsonb;
BEGIN
  -- Lock the conversations in one order (as ms_write_messages does), so concurrent batches queue
  -- instead of deadlocking and a soft delete or restore waits until this statement ends.
  PERFORM count(*) FROM (
    SELECT 1 FROM ${s}.conversations c
     WHERE c.id IN (SELECT x."conversationId"
                      FROM jsonb_to_recordset(p_batch) AS x("conversationId" text))
     ORDER BY c.id FOR NO KEY UPDATE
  ) l;
  -- The first trace (in array order) that breaks a rule; the message is looked for in other
  -- conversations (f) only for a trace whose message is not in its own.
  SELECT x.id, x."messageId" AS message_id, x."conversationId" AS conversation_id,
         f.conversation_id AS found, ${TRACE_RULE} AS rule INTO bad
    FROM ROWS FROM (jsonb_to_recordset(p_batch)
         AS (id text, "messageId" text, "conversationId" text, "userId" text,
             "tenantId" text, "deletedAt" bigint))
         WITH ORDINALITY AS x(id, "messageId", "conversationId", "userId", "tenantId",
                              "deletedAt", ord)
    LEFT JOIN ${s}.conversations c ON c.id = x."conversationId"
    LEFT JOIN ${s}.messages m ON m.id = x."messageId" AND m.conversation_id = x."conversationId"
    LEFT JOIN LATERAL (
      SELECT f.conversation_id, f.user_id, f.tenant_id FROM ${s}.messages f
       WHERE m.id IS NULL AND f.id = x."messageId" LIMIT 1
    ) f ON true
    LEFT JOIN ${s}.turn_traces o ON o.id = x.id
   WHERE ${TRACE_RULE} IS NOT NULL
   ORDER BY x.ord LIMIT 1;
  IF FOUND THEN
    ${raiseRule("bad.rule", traceDetail("bad.id", "bad.message_id", "bad.conversation_id", "bad.found"))}
  END IF;
  WITH w AS (
    INSERT INTO ${s}.turn_traces AS t (
      ${columnList(TURN_TRACE, "", "      ")})
    SELECT ${recordFields(TURN_TRACE, "x", "           ", {
      userId: 'coalesce(x."userId", c.user_id)',
      tenantId: 'coalesce(x."tenantId", c.tenant_id)',
    })}
      FROM jsonb_to_recordset(p_batch) AS x(
           ${recordDefinition(TURN_TRACE, "           ")})
      JOIN ${s}.conversations c ON c.id = x."conversationId"
    ON CONFLICT ${conflictTarget(false)} DO UPDATE SET
      ${setList(TURN_TRACE, "      ")}
    -- A trace created at once on another message (another conversation's lock) is not taken over.
    WHERE t.message_id = EXCLUDED.message_id
    RETURNING t.id, t.user_id, t.tenant_id
  )
  SELECT count(*), coalesce(jsonb_agg(jsonb_build_array(w.id, w.user_id, w.tenant_id)), '[]')
    INTO written, stored FROM w;
  IF written < jsonb_array_length(p_batch) THEN
    SELECT x.id, x."messageId" AS message_id, x."conversationId" AS conversation_id INTO bad
      FROM jsonb_to_recordset(p_batch) AS x(id text, "messageId" text, "conversationId" text)
      JOIN ${s}.turn_traces t ON t.id = x.id
     WHERE t.message_id <> x."messageId"
     LIMIT 1;
    ${raiseRule("'trace_moved'", traceDetail("bad.id", "bad.message_id", "bad.conversation_id", "NULL::text"))}
  END IF;
  RETURN stored;
END
$fn$;`;
}
