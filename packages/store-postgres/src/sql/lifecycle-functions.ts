import { forgetIds, homeOf, lockIds } from "./id-lookups.js";
import { raiseRule } from "./sqlstates.js";

/**
 * The SQL functions behind the writes that change many records at once: soft delete, restore,
 * purge and erasure. Each is one call (one round trip, one transaction) that first locks the
 * conversations it touches, `FOR NO KEY UPDATE` like the message and trace writes (functions.ts),
 * so a concurrent write into the same conversation is ordered before or after it, never between
 * its check and its write. Installed with the other functions (see `functionsSql`).
 */

/**
 * The scope of a by-id call as a condition on the record `t`: the function's `p_user_id` and
 * `p_tenant_id`, each NULL for no condition. A record outside it is absent for the call.
 */
function inScope(t: string): string {
  return `(p_user_id IS NULL OR ${t}.user_id = p_user_id)
     AND (p_tenant_id IS NULL OR ${t}.tenant_id = p_tenant_id)`;
}

/** The scope's parameters, last in the by-id functions' signatures. */
const SCOPE_PARAMETERS = "p_user_id text, p_tenant_id text";

/** The names of these functions. */
export const LIFECYCLE_FUNCTION_NAMES = [
  "ms_soft_delete_conversation",
  "ms_restore_conversation",
  "ms_soft_delete_message",
  "ms_restore_message",
  "ms_purge_deleted",
  "ms_delete_user_data",
] as const;

/**
 * `ms_soft_delete_conversation(id, at, user_id, tenant_id)`: stamps the live conversation (in the
 * scope) and its live messages and traces with `max(at, 1 + the greatest stamp already inside)`,
 * so that a restore can tell what was deleted with it. False when absent, out of the scope or
 * already soft-deleted.
 */
function softDeleteConversation(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_soft_delete_conversation(
  p_id text, p_at bigint, ${SCOPE_PARAMETERS})
RETURNS boolean LANGUAGE plpgsql AS $fn$
DECLARE
  current_stamp bigint;
  stamp bigint;
BEGIN
  SELECT c.deleted_at INTO current_stamp FROM ${s}.conversations c
   WHERE c.id = p_id AND ${inScope("c")} FOR NO KEY UPDATE;
  IF NOT FOUND OR current_stamp IS NOT NULL THEN
    RETURN false;
  END IF;
  SELECT greatest(p_at, max(u.at) + 1) INTO stamp FROM (
    SELECT m.deleted_at AS at FROM ${s}.messages m WHERE m.conversation_id = p_id
    UNION ALL
    SELECT t.deleted_at FROM ${s}.turn_traces t WHERE t.conversation_id = p_id
  ) u;
  UPDATE ${s}.conversations c SET deleted_at = stamp WHERE c.id = p_id;
  UPDATE ${s}.messages m SET deleted_at = stamp
   WHERE m.conversation_id = p_id AND m.deleted_at IS NULL;
  UPDATE ${s}.turn_traces t SET deleted_at = stamp
   WHERE t.conversation_id = p_id AND t.deleted_at IS NULL;
  RETURN true;
END
$fn$;`;
}

/**
 * `ms_restore_conversation(id, user_id, tenant_id)`: clears the stamp on it (in the scope) and on
 * what carries the same stamp.
 */
function restoreConversation(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_restore_conversation(p_id text, ${SCOPE_PARAMETERS})
RETURNS boolean LANGUAGE plpgsql AS $fn$
DECLARE
  stamp bigint;
BEGIN
  SELECT c.deleted_at INTO stamp FROM ${s}.conversations c
   WHERE c.id = p_id AND ${inScope("c")} FOR NO KEY UPDATE;
  IF stamp IS NULL THEN
    RETURN false;
  END IF;
  UPDATE ${s}.messages m SET deleted_at = NULL
   WHERE m.conversation_id = p_id AND m.deleted_at = stamp;
  UPDATE ${s}.turn_traces t SET deleted_at = NULL
   WHERE t.conversation_id = p_id AND t.deleted_at = stamp;
  UPDATE ${s}.conversations c SET deleted_at = NULL WHERE c.id = p_id;
  RETURN true;
END
$fn$;`;
}

/** The `home` variable of the partitioned layout's by-id functions. */
const homeDeclared = (partitioned: boolean) => (partitioned ? "\n  home text;" : "");

/**
 * The partitioned layout reads a message id's conversation from `message_ids` first
 * (`id-lookups.ts`), so its statements read one partition (one shard on Citus).
 */
const findHome = (s: string, partitioned: boolean) =>
  partitioned ? `\n  ${homeOf(s, "messages", "p_id")}` : "";
const atHome = (partitioned: boolean) => (partitioned ? " AND m.conversation_id = home" : "");

/**
 * `ms_soft_delete_message(id, at, user_id, tenant_id)`: stamps the live message (in the scope, by
 * its own owners) and its live trace.
 *
 * The message's state is read only once its conversation is locked: a soft delete of the
 * conversation holding the lock has then stamped it (each statement of a function sees what
 * committed before it, under READ COMMITTED), so this one finds it deleted and returns false
 * instead of writing its own stamp over the conversation's. Reading the message in the locking
 * statement would judge it by the row as it was before the wait.
 */
function softDeleteMessage(s: string, partitioned: boolean): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_soft_delete_message(
  p_id text, p_at bigint, ${SCOPE_PARAMETERS})
RETURNS boolean LANGUAGE plpgsql AS $fn$
DECLARE
  conversation text;${homeDeclared(partitioned)}
BEGIN${findHome(s, partitioned)}
  SELECT m.conversation_id INTO conversation FROM ${s}.messages m
   WHERE m.id = p_id${atHome(partitioned)} AND ${inScope("m")} AND m.deleted_at IS NULL;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM 1 FROM ${s}.conversations c WHERE c.id = conversation FOR NO KEY UPDATE;
  UPDATE ${s}.messages m SET deleted_at = p_at
   WHERE m.id = p_id AND m.conversation_id = conversation AND m.deleted_at IS NULL;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE ${s}.turn_traces t SET deleted_at = p_at
   WHERE t.message_id = p_id AND t.conversation_id = conversation AND t.deleted_at IS NULL;
  RETURN true;
END
$fn$;`;
}

/**
 * `ms_restore_message(id, user_id, tenant_id)`: clears the stamp on the message (in the scope)
 * and on its trace if deleted with it; refused (MS003) while the conversation is soft-deleted.
 * Like {@link softDeleteMessage}, it reads the message's stamp once the conversation is locked.
 */
function restoreMessage(s: string, partitioned: boolean): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_restore_message(p_id text, ${SCOPE_PARAMETERS})
RETURNS boolean LANGUAGE plpgsql AS $fn$
DECLARE
  conversation text;
  conversation_stamp bigint;
  stamp bigint;${homeDeclared(partitioned)}
BEGIN${findHome(s, partitioned)}
  SELECT m.conversation_id INTO conversation FROM ${s}.messages m
   WHERE m.id = p_id${atHome(partitioned)} AND ${inScope("m")} AND m.deleted_at IS NOT NULL;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  SELECT c.deleted_at INTO conversation_stamp FROM ${s}.conversations c
   WHERE c.id = conversation FOR NO KEY UPDATE;
  SELECT m.deleted_at INTO stamp FROM ${s}.messages m
   WHERE m.id = p_id AND m.conversation_id = conversation;
  IF stamp IS NULL THEN
    RETURN false;
  END IF;
  IF conversation_stamp IS NOT NULL THEN
    ${raiseRule("'restore_in_deleted_conversation'", { message: "p_id", conversation: "conversation" })}
  END IF;
  UPDATE ${s}.turn_traces t SET deleted_at = NULL
   WHERE t.message_id = p_id AND t.conversation_id = conversation AND t.deleted_at = stamp;
  UPDATE ${s}.messages m SET deleted_at = NULL
   WHERE m.id = p_id AND m.conversation_id = conversation;
  RETURN true;
END
$fn$;`;
}

/**
 * Locks the conversations matching `where` (alias `c`) in id order, `FOR UPDATE`, into `ids`:
 * no message or trace can arrive in them before the statement ends, so counts are exact.
 */
function lockConversations(s: string, where: string, partitioned: boolean): string {
  if (partitioned) {
    // One statement per conversation (Citus refuses FOR UPDATE over several shards), the
    // condition checked again under the lock.
    return `ids := '{}';
  FOR cid IN SELECT c.id FROM ${s}.conversations c WHERE ${where} ORDER BY c.id LOOP
    PERFORM 1 FROM ${s}.conversations c WHERE c.id = cid AND ${where} FOR UPDATE;
    IF FOUND THEN
      ids := ids || cid;
    END IF;
  END LOOP;`;
  }
  return `SELECT coalesce(array_agg(l.id), '{}') INTO ids FROM (
    SELECT c.id FROM ${s}.conversations c WHERE ${where} ORDER BY c.id FOR UPDATE
  ) l;`;
}

/**
 * Deletes the records of `table` matching `where` (alias `t` or `m`), counting them into `count`;
 * the partitioned layout also deletes their lookup rows (`id-lookups.ts`). `byId`: the records
 * are not in conversations this call holds locked, so their lookup rows are locked first, as
 * every removal of an id does, and only the records whose rows were locked are deleted.
 */
function deleteRecords(
  s: string,
  table: "turn_traces" | "messages",
  where: string,
  count: string,
  partitioned: boolean,
  byId = false,
): string {
  const alias = table === "messages" ? "m" : "t";
  if (!partitioned) {
    return `DELETE FROM ${s}.${table} ${alias} WHERE ${where};
  GET DIAGNOSTICS n = ROW_COUNT;
  ${count} := ${count} + n;`;
  }
  const locked = byId
    ? `SELECT coalesce(array_agg(${alias}.id), '{}') INTO gone_ids FROM ${s}.${table} ${alias} WHERE ${where};
  ${lockIds(s, table, "gone_ids")}
  `
    : "";
  const mine = byId ? ` AND ${alias}.id = ANY (gone_ids)` : "";
  return `${locked}WITH gone AS (DELETE FROM ${s}.${table} ${alias} WHERE ${where}${mine} RETURNING ${alias}.id)
  SELECT count(*), coalesce(array_agg(gone.id), '{}') INTO n, gone_ids FROM gone;
  ${count} := ${count} + n;
  ${forgetIds(s, table, "gone_ids")}`;
}

/** Hard-deletes the conversations `ids` with their messages and traces, counting each. */
function deleteConversations(s: string, partitioned: boolean): string {
  return `n_tt := 0;
  n_msg := 0;
  ${deleteRecords(s, "turn_traces", "t.conversation_id = ANY (ids)", "n_tt", partitioned)}
  ${deleteRecords(s, "messages", "m.conversation_id = ANY (ids)", "n_msg", partitioned)}
  DELETE FROM ${s}.conversations c WHERE c.id = ANY (ids);
  GET DIAGNOSTICS n_conv = ROW_COUNT;`;
}

/** The variables of the bulk deletes. */
const BULK_VARIABLES = `ids text[];
  cid text;
  gone_ids text[];
  n bigint;
  n_conv bigint;
  n_msg bigint;
  n_tt bigint;`;

/** Counts of a bulk hard delete. */
const COUNTS = `RETURNS TABLE (deleted_conversations bigint, deleted_messages bigint, deleted_turn_traces bigint)`;

/**
 * `ms_purge_deleted(before, user_id, tenant_id)`: hard-deletes what was soft-deleted before
 * `before` (of the user and tenant when not NULL, by each record's own ids): conversations with
 * everything in them, then messages with their traces, then traces; exact counts.
 */
function purgeDeleted(s: string, partitioned: boolean): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_purge_deleted(p_before bigint, p_user_id text, p_tenant_id text)
${COUNTS}
LANGUAGE plpgsql AS $fn$
DECLARE
  ${BULK_VARIABLES}
BEGIN
  ${lockConversations(s, `c.deleted_at < p_before AND ${inScope("c")}`, partitioned)}
  ${deleteConversations(s, partitioned)}
  SELECT coalesce(array_agg(m.id), '{}') INTO ids FROM ${s}.messages m
   WHERE m.deleted_at < p_before AND ${inScope("m")};
  ${deleteRecords(s, "turn_traces", "t.message_id = ANY (ids)", "n_tt", partitioned, true)}
  ${deleteRecords(s, "messages", `m.id = ANY (ids) AND m.deleted_at < p_before AND ${inScope("m")}`, "n_msg", partitioned, true)}
  ${deleteRecords(s, "turn_traces", `t.deleted_at < p_before AND ${inScope("t")}`, "n_tt", partitioned, true)}
  RETURN QUERY SELECT n_conv, n_msg, n_tt;
END
$fn$;`;
}

/**
 * `ms_delete_user_data(user_id, tenant_id)`: the user's conversations (of the tenant when not
 * NULL, soft-deleted ones included), messages and traces, with exact counts.
 */
function deleteUserData(s: string, partitioned: boolean): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_delete_user_data(p_user_id text, p_tenant_id text)
${COUNTS}
LANGUAGE plpgsql AS $fn$
DECLARE
  ${BULK_VARIABLES}
BEGIN
  -- Locking the conversations first stops new messages and traces from arriving, so the
  -- counts below are exactly what is removed.
  ${lockConversations(s, "c.user_id = p_user_id AND (p_tenant_id IS NULL OR c.tenant_id = p_tenant_id)", partitioned)}
  ${deleteConversations(s, partitioned)}
  RETURN QUERY SELECT n_conv, n_msg, n_tt;
END
$fn$;`;
}

/** Each function's `CREATE OR REPLACE`, for a schema (a quoted identifier). */
export const lifecycleFunctions: readonly ((schema: string, partitioned: boolean) => string)[] = [
  softDeleteConversation,
  restoreConversation,
  softDeleteMessage,
  restoreMessage,
  purgeDeleted,
  deleteUserData,
];
