import { columnList, recordDefinition, recordFields, setList } from "./column-lists.js";
import { TURN_TRACE } from "./columns.js";
import { lockIds } from "./id-locks.js";
import { raiseRule } from "./sqlstates.js";
import { conflictTarget, traceRule } from "./trace-function.js";

/**
 * `ms_put_turn_traces(batch jsonb)`: `storeTurnTraces` in one statement (issue #17: a migration
 * of 200,000 traces made 200,000 calls of `ms_put_turn_trace`). The same rules as that function,
 * checked for the whole batch before anything is written, so a refused batch stores nothing;
 * installed with the other functions (see `functions.ts`).
 *
 * Traces travel as the model's JSON (`JSON.stringify` of core's validated records), read with
 * `jsonb_to_recordset` keyed by field name, as `ms_put_messages` reads messages.
 *
 * Resolves to `{"refused": {trace, message, found}}` when a trace's message is missing or in
 * another conversation (nothing written; the caller words it as `storeTurnTrace` does), else to
 * `{"stored": [[id, userId, tenantId], …]}`. Ownership and soft-delete rules raise MS003 like
 * the single-trace function; a second trace for a message raises 23505 on the unique
 * `message_id`.
 *
 * In the partitioned layout (`partitioned`) it locks the batch's trace ids (`id-locks.ts`)
 * before the rules look for them in every partition, reads each message in its trace's
 * conversation (another partition only to say where a refused trace's message is), and upserts
 * on the partitioned key.
 */

/** The rule the batch's trace `x` (message `m`, conversation `c`, stored trace `o`) breaks, or NULL. */
const TRACE_RULE = traceRule({
  userId: 'x."userId"',
  tenantId: 'x."tenantId"',
  messageId: 'x."messageId"',
  deletedAt: 'x."deletedAt"',
  ownerUserId: "c.user_id",
  ownerTenantId: "c.tenant_id",
  messageDeletedAt: "m.deleted_at",
  storedMessageId: "o.message_id",
  storedDeletedAt: "o.deleted_at",
});

/** The function's `CREATE OR REPLACE` for a schema (a quoted identifier). */
export function putTurnTraces(s: string, partitioned: boolean): string {
  const own = partitioned ? ' AND m.conversation_id = x."conversationId"' : "";
  // Where a refused trace's message is: in the default layout, the join found it.
  const found = partitioned
    ? `(SELECT m2.conversation_id FROM ${s}.messages m2 WHERE m2.id = x."messageId" LIMIT 1)`
    : "m.conversation_id";
  const ids = partitioned
    ? `
  ${lockIds(s, "turn_traces", "SELECT x.id FROM jsonb_to_recordset(p_batch) AS x(id text)", "jsonb_array_length(p_batch)")}`
    : "";
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_turn_traces(p_batch jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $fn$
DECLARE
  bad record;
  written bigint;
  stored jsonb;${partitioned ? "\n  h integer;" : ""}
BEGIN
  -- Lock the conversations in one order (as ms_put_messages does), so concurrent batches queue
  -- instead of deadlocking and a soft delete or restore waits until this statement ends.
  PERFORM count(*) FROM (
    SELECT 1 FROM ${s}.conversations c
     WHERE c.id IN (SELECT x."conversationId"
                      FROM jsonb_to_recordset(p_batch) AS x("conversationId" text))
     ORDER BY c.id FOR NO KEY UPDATE
  ) l;${ids}
  -- The first trace (in array order) whose message is missing or in another conversation.
  SELECT x.id, x."messageId" AS message_id, ${found} AS found INTO bad
    FROM ROWS FROM (jsonb_to_recordset(p_batch)
         AS (id text, "messageId" text, "conversationId" text))
         WITH ORDINALITY AS x(id, "messageId", "conversationId", ord)
    LEFT JOIN ${s}.messages m ON m.id = x."messageId"${own}
   WHERE m.conversation_id IS DISTINCT FROM x."conversationId"
   ORDER BY x.ord LIMIT 1;
  IF FOUND THEN
    RETURN jsonb_build_object('refused', jsonb_build_object(
      'trace', bad.id, 'message', bad.message_id, 'found', bad.found));
  END IF;
  SELECT x.id, x."messageId" AS message_id, ${TRACE_RULE} AS rule INTO bad
    FROM ROWS FROM (jsonb_to_recordset(p_batch)
         AS (id text, "messageId" text, "conversationId" text, "userId" text,
             "tenantId" text, "deletedAt" bigint))
         WITH ORDINALITY AS x(id, "messageId", "conversationId", "userId", "tenantId",
                              "deletedAt", ord)
    JOIN ${s}.messages m ON m.id = x."messageId"${own}
    JOIN ${s}.conversations c ON c.id = m.conversation_id
    LEFT JOIN ${s}.turn_traces o ON o.id = x.id
   WHERE ${TRACE_RULE} IS NOT NULL
   ORDER BY x.ord LIMIT 1;
  IF FOUND THEN
    ${raiseRule("bad.rule", { trace: "bad.id", message: "bad.message_id" })}
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
    ON CONFLICT ${conflictTarget(partitioned)} DO UPDATE SET
      ${setList(TURN_TRACE, "      ")}
    -- A trace created at once on another message (another conversation's lock) is not taken over.
    WHERE t.message_id = EXCLUDED.message_id
    RETURNING t.id, t.user_id, t.tenant_id
  )
  SELECT count(*), coalesce(jsonb_agg(jsonb_build_array(w.id, w.user_id, w.tenant_id)), '[]')
    INTO written, stored FROM w;
  IF written < jsonb_array_length(p_batch) THEN
    SELECT x.id, x."messageId" AS message_id INTO bad
      FROM jsonb_to_recordset(p_batch) AS x(id text, "messageId" text)
      JOIN ${s}.turn_traces t ON t.id = x.id
     WHERE t.message_id <> x."messageId"
     LIMIT 1;
    ${raiseRule("'trace_moved'", { trace: "bad.id", message: "bad.message_id" })}
  END IF;
  RETURN jsonb_build_object('stored', stored);
END
$fn$;`;
}
