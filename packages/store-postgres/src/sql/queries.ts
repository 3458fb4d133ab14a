import type { PendingEmbeddingsFilter, Scope } from "@message-store/core";
import type { ConversationKey, MessageKey } from "@message-store/core/adapter";
import { encodeText } from "../nul-codec.js";
import { columnList, fieldNames, placeholders, selectList, setList } from "./column-lists.js";
import { CONVERSATION_READ, CONVERSATION_WRITE, MESSAGE, TURN_TRACE } from "./columns.js";
import { idReadQueries } from "./id-read-queries.js";
import { writeMessageCall, writeMessagesCall } from "./message-writes.js";
import { Params, type Statement, whereClause } from "./params.js";
import { quoteIdent } from "./quote.js";
import { ownedBy, ownerConditions, scopeParams } from "./scope-conditions.js";
import { type SearchRequest, searchStatement, vectorSearchStatement } from "./search-queries.js";
import { refuse } from "./sqlstates.js";
import { traceQueries } from "./trace-queries.js";

/**
 * Every DML statement, parameterised. Each contract call sends exactly one of these (one round
 * trip). Dynamic statements (filters, paging) are assembled from fixed fragments; values only
 * ever travel as parameters.
 *
 * The request's scope travels inside the statement (see `scope-conditions.ts`): a by-id statement
 * takes the scope's user and tenant as its last two parameters, and the dynamic ones add a
 * condition per owner the scope names.
 */

// Rows come back keyed by the models' field names (see `selectList`).
const CONVERSATION_COLUMNS = selectList(CONVERSATION_READ);
const MESSAGE_COLUMNS = selectList(MESSAGE);
const TRACE_COLUMNS = selectList(TURN_TRACE);

/**
 * The statements of one schema, for its layout (`partitioned`: the calls keyed by a message id
 * alone go through the id lookup, see `id-read-queries.ts`). Build once per store.
 */
export function createQueries(schema: string, partitioned = false) {
  const s = quoteIdent(schema);
  const conversations = `${s}.conversations`;
  const messages = `${s}.messages`;
  const traces = `${s}.turn_traces`;

  return {
    /**
     * Upsert; keeps `last_message_at`; returns the row with the generated `last_activity_at`.
     * The conflict's `WHERE` refuses (MS003, see `refuse`) a conversation stored with another
     * owner (first) or `deletedAt`, so a racing create by another user is refused, never taken
     * over, and the refusal says which rule it broke without a second statement.
     */
    upsertConversation: `INSERT INTO ${conversations} AS c (
  ${columnList(CONVERSATION_WRITE)})
VALUES (
  ${placeholders(CONVERSATION_WRITE)})
ON CONFLICT (id) DO UPDATE SET
  ${setList(CONVERSATION_WRITE)}
WHERE CASE
  WHEN c.user_id <> EXCLUDED.user_id OR c.tenant_id IS DISTINCT FROM EXCLUDED.tenant_id
    THEN ${refuse(s, "'conversation_owner'", { conversation: "c.id" })}
  WHEN c.deleted_at IS DISTINCT FROM EXCLUDED.deleted_at
    THEN ${refuse(s, "'conversation_deleted_at'", { conversation: "c.id" })}
  ELSE true END
RETURNING ${CONVERSATION_COLUMNS}`,

    /** `$2`: include a soft-deleted one; `$3`, `$4`: the scope. */
    readConversation: `SELECT ${CONVERSATION_COLUMNS} FROM ${conversations}
 WHERE id = $1 AND ($2 OR deleted_at IS NULL)
   AND ${ownedBy("$3", "$4")}`,

    /** `(last_activity_at desc, id asc)` keyset over `idx_conv_user_activity` (a user's scope). */
    listConversations(
      scope: Scope & { userId: string },
      after: ConversationKey | null,
      take: number | null,
      includeDeleted: boolean,
    ) {
      const p = new Params();
      let where = conversationConditions(scope, includeDeleted, p).join(" AND ");
      if (after) {
        const at = p.add(after.lastActivityAt);
        // The redundant `<=` bound gives the index scan its start; the OR breaks the tie by id.
        where += ` AND last_activity_at <= ${at}
  AND (last_activity_at < ${at} OR id > ${p.add(encodeText(after.id))})`;
      }
      return {
        text: `SELECT ${CONVERSATION_COLUMNS} FROM ${conversations} WHERE ${where}
ORDER BY last_activity_at DESC, id LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /**
     * By id (code-point order, `COLLATE "C"`): the primary key, one tenant's (`idx_conv_tenant`)
     * or one user's rows sorted.
     */
    listConversationsById(
      scope: Scope,
      after: string | null,
      take: number | null,
      includeDeleted: boolean,
    ) {
      const p = new Params();
      const where = conversationConditions(scope, includeDeleted, p);
      if (after !== null) where.push(`id > ${p.add(encodeText(after))}`);
      return {
        text: `SELECT ${CONVERSATION_COLUMNS} FROM ${conversations}${whereClause(where)}
ORDER BY id LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /** Cascades to messages and traces through the foreign keys. `$2`, `$3`: the scope. */
    deleteConversation: `DELETE FROM ${conversations} WHERE id = $1 AND ${ownedBy("$2", "$3")}`,

    /**
     * `storeMessages`: one message as a typed parameter per column (`null` in the partitioned
     * layout, whose one message is a batch of one); a batch as one JSONB parameter, then
     * (`storeSessionMessages`) the conversation and `now`, else NULLs; see message-writes.ts.
     */
    writeMessage: partitioned ? null : writeMessageCall(s),
    writeMessages: writeMessagesCall(s),

    /** `$2`: include a soft-deleted one; `$3`, `$4`: the scope. */
    readMessage: `SELECT ${MESSAGE_COLUMNS} FROM ${messages}
 WHERE id = $1 AND ($2 OR deleted_at IS NULL)
   AND ${ownedBy("$3", "$4")}`,

    /** The message's trace goes with it (`ON DELETE CASCADE`). `$2`, `$3`: the scope. */
    deleteMessage: `DELETE FROM ${messages} WHERE id = $1 AND ${ownedBy("$2", "$3")}`,

    /** `$3`, `$4`: the scope. */
    flagMessage: `UPDATE ${messages} SET is_flagged = $2 WHERE id = $1 AND deleted_at IS NULL
   AND ${ownedBy("$3", "$4")}
RETURNING ${MESSAGE_COLUMNS}`,

    /** The last two parameters of each: the scope (see lifecycle-functions.ts). */
    softDeleteConversation: `SELECT ${s}.ms_soft_delete_conversation($1, $2, $3, $4) AS done`,
    restoreConversation: `SELECT ${s}.ms_restore_conversation($1, $2, $3) AS done`,
    softDeleteMessage: `SELECT ${s}.ms_soft_delete_message($1, $2, $3, $4) AS done`,
    restoreMessage: `SELECT ${s}.ms_restore_message($1, $2, $3) AS done`,

    /** `$2`, `$3`: the scope's user and tenant, or NULL. */
    purgeDeleted: `SELECT deleted_conversations, deleted_messages, deleted_turn_traces
  FROM ${s}.ms_purge_deleted($1, $2, $3)`,

    /** `(timestamp, seq)` keyset over `idx_msg_conv`; the scope on each message's owners. */
    listMessages(
      scope: Scope,
      conversationId: string,
      after: MessageKey | null,
      take: number | null,
      includeDeleted: boolean,
    ) {
      const p = new Params();
      const [user, tenant] = scopeParams(scope);
      let where = `conversation_id = ${p.add(encodeText(conversationId))}
   AND ${ownedBy(p.add(user), p.add(tenant))}`;
      if (!includeDeleted) where += " AND deleted_at IS NULL";
      if (after)
        where += ` AND ("timestamp", seq) > (${p.add(after.timestamp)}, ${p.add(after.sequence)})`;
      return {
        text: `SELECT ${MESSAGE_COLUMNS}, seq FROM ${messages} WHERE ${where}
ORDER BY "timestamp", seq LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /**
     * The flip query: newest n non-flagged rows backwards through `idx_msg_conv`, re-sorted.
     * `$3`, `$4`: the scope, on each message's owners.
     */
    immediateContext: `SELECT ${fieldNames(MESSAGE)} FROM (
  SELECT ${MESSAGE_COLUMNS}, seq FROM ${messages}
   WHERE conversation_id = $1 AND NOT is_flagged AND deleted_at IS NULL
     AND ${ownedBy("$3", "$4")}
   ORDER BY "timestamp" DESC, seq DESC LIMIT $2
) newest ORDER BY "timestamp", seq`,

    /**
     * One trace: writes it only if its message exists in its conversation, else says why
     * (MS003). Unique `message_id` still raises 23505. See `ms_put_turn_trace` in
     * trace-function.ts.
     */
    upsertTrace: `SELECT stored_user_id, stored_tenant_id FROM ${s}.ms_put_turn_trace(
  ${placeholders(TURN_TRACE)})`,

    /** A batch of traces as one JSONB array; see `ms_put_turn_traces` in trace-batch-function.ts. */
    putTraces: `SELECT ${s}.ms_put_turn_traces($1::jsonb) AS stored`,

    /** `$2`: include a soft-deleted one; `$3`, `$4`: the scope, on the trace's owners. */
    readTraceByMessage: `SELECT ${TRACE_COLUMNS} FROM ${traces}
 WHERE message_id = $1 AND ($2 OR deleted_at IS NULL)
   AND ${ownedBy("$3", "$4")}`,

    ...traceQueries(s),

    /**
     * Exact counts of what is removed; see `ms_delete_user_data` in lifecycle-functions.ts.
     * `$1`, `$2`: the scope's user and tenant (or NULL).
     */
    deleteUserData: `SELECT deleted_conversations, deleted_messages, deleted_turn_traces
  FROM ${s}.ms_delete_user_data($1, $2)`,

    /**
     * The embedding queue, by id over the partial index `idx_msg_pending` (live rows without an
     * embedding).
     */
    listPending(
      scope: Scope,
      f: Omit<PendingEmbeddingsFilter, "userId" | "tenantId">,
      after: string | null,
      take: number | null,
    ): Statement {
      const p = new Params();
      const where = [
        "embedding IS NULL",
        "deleted_at IS NULL",
        `role = ANY (${p.add(f.roles)}::text[])`,
      ];
      if (!f.includeFlagged) where.push("NOT is_flagged");
      where.push(...ownerConditions(scope, p));
      if (after !== null) where.push(`id > ${p.add(encodeText(after))}`);
      return {
        text: `SELECT ${MESSAGE_COLUMNS} FROM ${messages}${whereClause(where)}
ORDER BY id LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /**
     * Sets each embedding whose message is live and still has the text it was computed from;
     * the row lock makes a concurrent text change either win (no match) or wait. `$2`, `$3`: the
     * scope.
     */
    setEmbeddings: `UPDATE ${messages} m SET embedding = u.embedding
  FROM jsonb_to_recordset($1::jsonb) AS u(id text, "originalContent" text, embedding double precision[])
 WHERE m.id = u.id AND m.deleted_at IS NULL AND m.original_content = u."originalContent"
   AND ${ownedBy("$2", "$3", "m.")}`,

    /** Semantic search on float8[]; see search-queries.ts. */
    search: (scope: Scope, q: SearchRequest, cubes: boolean): Statement =>
      searchStatement(s, scope, q, cubes),

    /** Semantic search with pgvector (migration 3 found the extension); see search-queries.ts. */
    vectorSearch: (scope: Scope, q: SearchRequest): Statement => vectorSearchStatement(s, scope, q),

    /**
     * Which search columns migrations 3 and 4 added: `embedding_vector` (pgvector was available)
     * and `embedding_cubes` (cube was, and pgvector was not).
     */
    searchColumns: {
      text: `SELECT bool_or(attname = 'embedding_vector') AS vector,
       bool_or(attname = 'embedding_cubes') AS cubes
  FROM pg_attribute WHERE attrelid = to_regclass($1) AND NOT attisdropped`,
      values: [messages],
    },
    ...(partitioned ? idReadQueries(s) : {}),
  };
}

/** The statements of one schema. */
export type Queries = ReturnType<typeof createQueries>;

/**
 * What a server says about itself: whether it is a standby, and which cluster it belongs to (a
 * streaming standby has its primary's `system_identifier`). Any role may read both.
 */
export const SERVER_IDENTITY = `SELECT pg_is_in_recovery() AS in_recovery,
       system_identifier::text AS system_identifier FROM pg_control_system()`;

/** A conversation list's scope and soft-delete filter as SQL. */
function conversationConditions(scope: Scope, includeDeleted: boolean, p: Params): string[] {
  const where = ownerConditions(scope, p);
  if (!includeDeleted) where.push("deleted_at IS NULL");
  return where;
}
