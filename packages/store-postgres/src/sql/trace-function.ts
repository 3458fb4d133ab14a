import { columnList, parameterDefinitions, parameterNames, setList } from "./column-lists.js";
import { TURN_TRACE } from "./columns.js";
import { lockId } from "./id-locks.js";
import { raiseRule } from "./sqlstates.js";

/** The conflict target of a message or trace upsert: the layout's primary key. */
export function conflictTarget(partitioned: boolean): string {
  return partitioned ? "(id, conversation_id)" : "(id)";
}

/** SQL expressions a trace's rule check reads (see {@link traceRule}). */
export interface TraceRuleInputs {
  /** The incoming trace's fields. */
  userId: string;
  tenantId: string;
  messageId: string;
  deletedAt: string;
  /** Its conversation's owner. */
  ownerUserId: string;
  ownerTenantId: string;
  /** Its message's `deleted_at`. */
  messageDeletedAt: string;
  /** The trace as stored under the same id (NULLs when it is new). */
  storedMessageId: string;
  storedDeletedAt: string;
}

/**
 * The ownership and soft-delete rule a trace write breaks (`'trace_owner'`, `'trace_moved'`,
 * `'trace_deleted_at'`, `'message_deleted'`; see `RULE_TEXT` in errors.ts), or NULL: one CASE
 * for the single-trace and the batch function.
 */
export function traceRule(r: TraceRuleInputs): string {
  return `CASE
    WHEN (${r.userId} IS NOT NULL AND ${r.userId} <> ${r.ownerUserId})
      OR (${r.tenantId} IS NOT NULL AND ${r.tenantId} IS DISTINCT FROM ${r.ownerTenantId}) THEN 'trace_owner'
    WHEN ${r.storedMessageId} IS NOT NULL AND ${r.storedMessageId} <> ${r.messageId} THEN 'trace_moved'
    WHEN ${r.storedMessageId} IS NOT NULL AND ${r.storedDeletedAt} IS DISTINCT FROM ${r.deletedAt}
      THEN 'trace_deleted_at'
    WHEN ${r.storedMessageId} IS NULL AND ${r.messageDeletedAt} IS NOT NULL AND ${r.deletedAt} IS NULL
      THEN 'message_deleted'
  END`;
}

/**
 * `ms_put_turn_trace(p_id, p_message_id, …)`: the trace upsert, one parameter per column. It
 * writes only if the message exists in the trace's conversation and reports what it found, so a
 * refusal costs no second query; the unique `message_id` still raises 23505. `userId` and
 * `tenantId` are the conversation's (NULL filled, another one refused), and a trace never moves
 * to another message nor changes `deletedAt` through an upsert.
 *
 * In the partitioned layout it reads the message in the trace's conversation (one partition),
 * and the other partitions only to say where a refused trace's message is; it locks the trace id
 * and looks for the id in the other partitions only when it is not in the conversation's own
 * (see `id-locks.ts`).
 */
export function putTurnTrace(s: string, partitioned: boolean): string {
  const own = (alias: string) =>
    partitioned ? ` AND ${alias}.conversation_id = p_conversation_id` : "";
  const elsewhere = (lookup: string) =>
    partitioned
      ? `
  IF NOT FOUND THEN
    ${lookup}
  END IF;`
      : "";
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_turn_trace(
  ${parameterDefinitions(TURN_TRACE)},
  OUT message_conversation_id text, OUT written bigint,
  OUT stored_user_id text, OUT stored_tenant_id text)
LANGUAGE plpgsql${partitioned ? " SET plan_cache_mode = force_generic_plan" : ""} AS $fn$
DECLARE
  target record;
  old record;
  rule text;
BEGIN
  -- The conversation lock orders this write after a concurrent soft delete or restore.
  SELECT m.conversation_id, m.deleted_at, c.user_id, c.tenant_id INTO target
    FROM ${s}.messages m JOIN ${s}.conversations c ON c.id = m.conversation_id
   WHERE m.id = p_message_id${own("m")}
     FOR NO KEY UPDATE OF c;${elsewhere(`SELECT m.conversation_id INTO target FROM ${s}.messages m WHERE m.id = p_message_id LIMIT 1;`)}
  message_conversation_id := target.conversation_id;
  -- Refused (nothing written) when the message is missing or in another conversation; the
  -- caller reports which from message_conversation_id.
  IF message_conversation_id IS DISTINCT FROM p_conversation_id THEN
    written := 0;
    RETURN;
  END IF;${
    partitioned
      ? `
  ${lockId(s, "turn_traces", "p_id")}`
      : ""
  }
  SELECT t.message_id, t.deleted_at INTO old FROM ${s}.turn_traces t WHERE t.id = p_id${own("t")};${elsewhere(`SELECT t.message_id, t.deleted_at INTO old FROM ${s}.turn_traces t WHERE t.id = p_id LIMIT 1;`)}
  rule := ${traceRule({
    userId: "p_user_id",
    tenantId: "p_tenant_id",
    messageId: "p_message_id",
    deletedAt: "p_deleted_at",
    ownerUserId: "target.user_id",
    ownerTenantId: "target.tenant_id",
    messageDeletedAt: "target.deleted_at",
    storedMessageId: "old.message_id",
    storedDeletedAt: "old.deleted_at",
  })};
  IF rule IS NOT NULL THEN
    ${raiseRule("rule", { trace: "p_id", message: "p_message_id" })}
  END IF;
  stored_user_id := coalesce(p_user_id, target.user_id);
  stored_tenant_id := coalesce(p_tenant_id, target.tenant_id);
  INSERT INTO ${s}.turn_traces AS t (
    ${columnList(TURN_TRACE, "", "    ")})
  VALUES (
    ${parameterNames(TURN_TRACE, "    ", { user_id: "stored_user_id", tenant_id: "stored_tenant_id" })})
  ON CONFLICT ${conflictTarget(partitioned)} DO UPDATE SET
    ${setList(TURN_TRACE, "    ")}
  -- A trace created at once on another message (another conversation's lock) is not taken over.
  WHERE t.message_id = EXCLUDED.message_id;
  IF NOT FOUND THEN
    ${raiseRule("'trace_moved'", { trace: "p_id", message: "p_message_id" })}
  END IF;
  written := 1;
END
$fn$;`;
}
