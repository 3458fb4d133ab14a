import { columnList, parameterDefinitions, parameterNames, setList } from "./column-lists.js";
import { TURN_TRACE } from "./columns.js";
import { claimIds, homeOf, takeOver } from "./id-lookups.js";
import { raiseRule } from "./sqlstates.js";

/** The conflict target of a message or trace upsert: the layout's primary key. */
export function conflictTarget(partitioned: boolean): string {
  return partitioned ? "(id, conversation_id)" : "(id)";
}

/** SQL expressions the trace rules read (see {@link traceRule} and {@link traceRefusal}). */
export interface TraceRuleInputs {
  /** The incoming trace's fields. */
  userId: string;
  tenantId: string;
  messageId: string;
  deletedAt: string;
  /** Its conversation (by the trace's `conversationId`): its id (NULL when missing) and owner. */
  conversationId: string;
  ownerUserId: string;
  ownerTenantId: string;
}

/** The trace's own owners are not its conversation's (a NULL one is filled, not compared). */
function ownerConflict(r: TraceRuleInputs): string {
  return `(${r.userId} IS NOT NULL AND ${r.userId} <> ${r.ownerUserId})
      OR (${r.tenantId} IS NOT NULL AND ${r.tenantId} IS DISTINCT FROM ${r.ownerTenantId})`;
}

/**
 * Why a trace whose message is not in its conversation is refused (`'trace_conversation'`,
 * `'trace_owner'`, `'trace_message_missing'`, `'trace_message_owner'`,
 * `'trace_message_elsewhere'`; see `refusals.ts`), in the contract's order, owners first: its
 * conversation is missing or another owner's, its message is missing or another owner's, and
 * only then is the message in another conversation of the same owner.
 * `found` is the message as stored (NULLs when missing): alias of `conversation_id`, `user_id`,
 * `tenant_id`.
 */
export function traceRefusal(r: TraceRuleInputs, found: string): string {
  return `CASE
    WHEN ${r.conversationId} IS NULL THEN 'trace_conversation'
    WHEN ${ownerConflict(r)} THEN 'trace_owner'
    WHEN ${found}.conversation_id IS NULL THEN 'trace_message_missing'
    WHEN ${found}.user_id <> ${r.ownerUserId} OR ${found}.tenant_id IS DISTINCT FROM ${r.ownerTenantId}
      THEN 'trace_message_owner'
    ELSE 'trace_message_elsewhere'
  END`;
}

/**
 * The rule a trace whose message is in its conversation breaks (`'trace_owner'`,
 * `'trace_foreign'`, `'trace_moved'`, `'trace_deleted_at'`, `'message_deleted'`), or NULL: one
 * CASE for the single-trace and the batch function, the owner rules first (the trace id's owner
 * after the conversation's). `stored` is the trace
 * as stored under the same id (NULLs when new): alias of `message_id`, `deleted_at`, `user_id`,
 * `tenant_id`; `messageDeletedAt` the message's `deleted_at`.
 */
export function traceRule(r: TraceRuleInputs, stored: string, messageDeletedAt: string): string {
  return `CASE
    WHEN ${ownerConflict(r)} THEN 'trace_owner'
    WHEN ${stored}.message_id IS NOT NULL AND ${stored}.message_id <> ${r.messageId}
         AND (${stored}.user_id IS DISTINCT FROM ${r.ownerUserId}
              OR ${stored}.tenant_id IS DISTINCT FROM ${r.ownerTenantId}) THEN 'trace_foreign'
    WHEN ${stored}.message_id IS NOT NULL AND ${stored}.message_id <> ${r.messageId} THEN 'trace_moved'
    WHEN ${stored}.message_id IS NOT NULL AND ${stored}.deleted_at IS DISTINCT FROM ${r.deletedAt}
      THEN 'trace_deleted_at'
    WHEN ${stored}.message_id IS NULL AND ${messageDeletedAt} IS NOT NULL AND ${r.deletedAt} IS NULL
      THEN 'message_deleted'
  END`;
}

/** The ids a trace rule's error names (see `raiseRule`), for a trace of these SQL expressions. */
export function traceDetail(
  id: string,
  messageId: string,
  conversationId: string,
  found: string,
): Record<string, string> {
  return { trace: id, message: messageId, conversation: conversationId, found };
}

const SINGLE: TraceRuleInputs = {
  userId: "p_user_id",
  tenantId: "p_tenant_id",
  messageId: "p_message_id",
  deletedAt: "p_deleted_at",
  conversationId: "c.id",
  ownerUserId: "c.user_id",
  ownerTenantId: "c.tenant_id",
};

/** The same trace once its message was found in its conversation (`target`, locked). */
const FOUND: TraceRuleInputs = {
  ...SINGLE,
  conversationId: "target.id",
  ownerUserId: "target.user_id",
  ownerTenantId: "target.tenant_id",
};

/** The refused trace's conversation, read on its own (`owner`, a record variable). */
const OWNER: TraceRuleInputs = {
  ...SINGLE,
  conversationId: "owner.id",
  ownerUserId: "owner.user_id",
  ownerTenantId: "owner.tenant_id",
};

/**
 * Why the trace is refused, into `bad` (`rule`, `found`), when its message is not in its
 * conversation. The default layout looks for the message in one statement; the partitioned one
 * reads its conversation from `message_ids` (`id-lookups.ts`), then each record with a statement
 * of its own, so every statement names one conversation (one partition, one shard on Citus).
 */
function refusal(s: string, partitioned: boolean): string {
  if (!partitioned) {
    return `SELECT ${traceRefusal(SINGLE, "f")} AS rule, f.conversation_id AS found INTO bad
      FROM (SELECT 1) one
      LEFT JOIN ${s}.conversations c ON c.id = p_conversation_id
      LEFT JOIN LATERAL (
        SELECT f.conversation_id, f.user_id, f.tenant_id FROM ${s}.messages f
         WHERE f.id = p_message_id LIMIT 1
      ) f ON true;`;
  }
  return `${homeOf(s, "messages", "p_message_id")}
    SELECT c.id, c.user_id, c.tenant_id INTO owner FROM ${s}.conversations c
     WHERE c.id = p_conversation_id;
    SELECT f.conversation_id, f.user_id, f.tenant_id INTO found_row FROM ${s}.messages f
     WHERE f.id = p_message_id AND f.conversation_id = home;
    SELECT ${traceRefusal(OWNER, "found_row")} AS rule, found_row.conversation_id AS found INTO bad;`;
}

/**
 * The partitioned layout's claim of the trace id (`id-lookups.ts`, which locks its lookup row)
 * and read of the trace stored under it (`old`): in the trace's conversation, or, when the lookup
 * places the id in another, in that one; gone from there, the claim takes the id over.
 */
function claimTrace(s: string, trace: string): string {
  return `
  elsewhere := false;
  ${claimIds(
    s,
    "turn_traces",
    "SELECT p_id AS id, p_conversation_id AS conversation_id",
    `elsewhere := true;
    SELECT ${trace} INTO old FROM ${s}.turn_traces t WHERE t.id = e.id AND t.conversation_id = e.home;
    IF NOT FOUND THEN
      ${takeOver(s, "turn_traces")}
    END IF;`,
  )}
  IF NOT elsewhere THEN
    SELECT ${trace} INTO old FROM ${s}.turn_traces t
     WHERE t.id = p_id AND t.conversation_id = p_conversation_id;
  END IF;`;
}

/**
 * `ms_put_turn_trace(p_id, p_message_id, …)`: the trace upsert, one parameter per column,
 * resolving to the `userId` and `tenantId` it stored. It writes only if the message exists in
 * the trace's conversation (else MS003 says why, see {@link traceRefusal}); the unique
 * `message_id` still raises 23505. `userId` and `tenantId` are the conversation's (NULL filled,
 * another one refused), and a trace never moves to another message nor changes `deletedAt`
 * through an upsert.
 *
 * In the partitioned layout every statement names the conversation it reads (one partition; one
 * shard on Citus): the message and the trace in the trace's conversation, the lookups
 * (`id-lookups.ts`) for a refusal's reason and for the trace id's uniqueness.
 */
export function putTurnTrace(s: string, partitioned: boolean): string {
  const trace = "t.message_id, t.deleted_at, t.user_id, t.tenant_id";
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_turn_trace(
  ${parameterDefinitions(TURN_TRACE)},
  OUT stored_user_id text, OUT stored_tenant_id text)
LANGUAGE plpgsql AS $fn$
DECLARE
  target record;
  old record;
  bad record;
  rule text;${partitioned ? "\n  home text;\n  owner record;\n  found_row record;\n  e record;\n  elsewhere boolean;" : ""}
BEGIN
  -- The conversation lock orders this write after a concurrent soft delete or restore.
  SELECT m.conversation_id, m.deleted_at, c.id, c.user_id, c.tenant_id INTO target
    FROM ${s}.messages m JOIN ${s}.conversations c ON c.id = m.conversation_id
   WHERE m.id = p_message_id${partitioned ? " AND m.conversation_id = p_conversation_id AND c.id = p_conversation_id" : ""}
     FOR NO KEY UPDATE OF c;
  IF target.conversation_id IS DISTINCT FROM p_conversation_id THEN
    -- Refused (nothing written): the message is missing or in another conversation.
    ${refusal(s, partitioned)}
    ${raiseRule("bad.rule", traceDetail("p_id", "p_message_id", "p_conversation_id", "bad.found"))}
  END IF;${partitioned ? claimTrace(s, trace) : `\n  SELECT ${trace} INTO old FROM ${s}.turn_traces t WHERE t.id = p_id;`}
  rule := ${traceRule(FOUND, "old", "target.deleted_at")};
  IF rule IS NOT NULL THEN
    ${raiseRule("rule", traceDetail("p_id", "p_message_id", "p_conversation_id", "NULL::text"))}
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
    ${raiseRule("'trace_moved'", traceDetail("p_id", "p_message_id", "p_conversation_id", "NULL::text"))}
  END IF;
END
$fn$;`;
}
