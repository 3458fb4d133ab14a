import type {
  ConversationFilter,
  PendingEmbeddingsFilter,
  SearchQuery,
  TurnTraceFilter,
  UsageQuery,
} from "@message-store/core";
import type { ConversationKey, MessageKey, TraceKey } from "@message-store/core/adapter";
import { encodeText, toJsonParam } from "../nul-codec.js";
import { columnList, fieldNames, placeholders, selectList, setList } from "./column-lists.js";
import { CONVERSATION_READ, CONVERSATION_WRITE, MESSAGE, TURN_TRACE } from "./columns.js";
import { Params, type Statement, whereClause } from "./params.js";
import { quoteIdent } from "./quote.js";
import { searchStatement, vectorSearchStatement } from "./search-queries.js";

/**
 * Every DML statement, parameterised. Each contract call sends exactly one of these (one round
 * trip). Dynamic statements (filters, paging) are assembled from fixed fragments; values only
 * ever travel as parameters.
 */

// Rows come back keyed by the models' field names (see `selectList`).
const CONVERSATION_COLUMNS = selectList(CONVERSATION_READ);
const MESSAGE_COLUMNS = selectList(MESSAGE);
const TRACE_COLUMNS = selectList(TURN_TRACE);

/** The statements of one schema. Build once per store. */
export function createQueries(schema: string) {
  const s = quoteIdent(schema);
  const conversations = `${s}.conversations`;
  const messages = `${s}.messages`;
  const traces = `${s}.turn_traces`;

  return {
    /**
     * Upsert; keeps `last_message_at`; returns the row with the generated `last_activity_at`, or
     * no row when the conversation exists with another owner or `deletedAt` (the conflict's
     * `WHERE`, so a racing create by another user is refused, never taken over).
     */
    upsertConversation: `INSERT INTO ${conversations} AS c (
  ${columnList(CONVERSATION_WRITE)})
VALUES (
  ${placeholders(CONVERSATION_WRITE)})
ON CONFLICT (id) DO UPDATE SET
  ${setList(CONVERSATION_WRITE)}
WHERE c.user_id = EXCLUDED.user_id AND c.tenant_id IS NOT DISTINCT FROM EXCLUDED.tenant_id
  AND c.deleted_at IS NOT DISTINCT FROM EXCLUDED.deleted_at
RETURNING ${CONVERSATION_COLUMNS}`,

    /** `$2`: include a soft-deleted one. */
    readConversation: `SELECT ${CONVERSATION_COLUMNS} FROM ${conversations}
 WHERE id = $1 AND ($2 OR deleted_at IS NULL)`,

    /** `(last_activity_at desc, id asc)` keyset over `idx_conv_user_activity`. */
    listConversations(
      userId: string,
      after: ConversationKey | null,
      take: number | null,
      filter: ConversationFilter,
    ) {
      const p = new Params();
      let where = [
        `user_id = ${p.add(encodeText(userId))}`,
        ...conversationConditions(filter, p),
      ].join(" AND ");
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
      userId: string | null,
      after: string | null,
      take: number | null,
      filter: ConversationFilter,
    ) {
      const p = new Params();
      const where = conversationConditions(filter, p);
      if (userId !== null) where.push(`user_id = ${p.add(encodeText(userId))}`);
      if (after !== null) where.push(`id > ${p.add(encodeText(after))}`);
      return {
        text: `SELECT ${CONVERSATION_COLUMNS} FROM ${conversations}${whereClause(where)}
ORDER BY id LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /** Cascades to messages and traces through the foreign keys. */
    deleteConversation: `DELETE FROM ${conversations} WHERE id = $1`,

    /**
     * The whole batch as one JSONB parameter, and the conversation to create first (or NULL);
     * see `ms_put_messages` in functions.ts.
     */
    putMessages: `SELECT ${s}.ms_put_messages($1::jsonb, $2::jsonb) AS stored`,

    /** One message as a JSONB object; see `ms_put_message` in functions.ts. */
    putMessage: `SELECT ${s}.ms_put_message($1::jsonb) AS stored`,

    /** `$2`: include a soft-deleted one. */
    readMessage: `SELECT ${MESSAGE_COLUMNS} FROM ${messages}
 WHERE id = $1 AND ($2 OR deleted_at IS NULL)`,

    /** The message's trace goes with it (`ON DELETE CASCADE`). */
    deleteMessage: `DELETE FROM ${messages} WHERE id = $1`,

    flagMessage: `UPDATE ${messages} SET is_flagged = $2 WHERE id = $1 AND deleted_at IS NULL
RETURNING ${MESSAGE_COLUMNS}`,

    softDeleteConversation: `SELECT ${s}.ms_soft_delete_conversation($1, $2) AS done`,
    restoreConversation: `SELECT ${s}.ms_restore_conversation($1) AS done`,
    softDeleteMessage: `SELECT ${s}.ms_soft_delete_message($1, $2) AS done`,
    restoreMessage: `SELECT ${s}.ms_restore_message($1) AS done`,

    /** `$2`, `$3`: the scope's user and tenant, or NULL. */
    purgeDeleted: `SELECT deleted_conversations, deleted_messages, deleted_turn_traces
  FROM ${s}.ms_purge_deleted($1, $2, $3)`,

    /** `(timestamp, seq)` keyset over `idx_msg_conv`. */
    listMessages(
      conversationId: string,
      after: MessageKey | null,
      take: number | null,
      includeDeleted: boolean,
    ) {
      const p = new Params();
      let where = `conversation_id = ${p.add(encodeText(conversationId))}`;
      if (!includeDeleted) where += " AND deleted_at IS NULL";
      if (after)
        where += ` AND ("timestamp", seq) > (${p.add(after.timestamp)}, ${p.add(after.sequence)})`;
      return {
        text: `SELECT ${MESSAGE_COLUMNS}, seq FROM ${messages} WHERE ${where}
ORDER BY "timestamp", seq LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /** The flip query: newest n non-flagged rows backwards through `idx_msg_conv`, re-sorted. */
    immediateContext: `SELECT ${fieldNames(MESSAGE)} FROM (
  SELECT ${MESSAGE_COLUMNS}, seq FROM ${messages}
   WHERE conversation_id = $1 AND NOT is_flagged AND deleted_at IS NULL
   ORDER BY "timestamp" DESC, seq DESC LIMIT $2
) newest ORDER BY "timestamp", seq`,

    /**
     * Writes the trace only if its message exists in its conversation; reports what it found, so
     * a refusal costs no second query. Unique `message_id` still raises 23505. See
     * `ms_put_turn_trace` in functions.ts.
     */
    upsertTrace: `SELECT message_conversation_id, written, stored_user_id, stored_tenant_id
  FROM ${s}.ms_put_turn_trace(
  ${placeholders(TURN_TRACE)})`,

    /** `$2`: include a soft-deleted one. */
    readTraceByMessage: `SELECT ${TRACE_COLUMNS} FROM ${traces}
 WHERE message_id = $1 AND ($2 OR deleted_at IS NULL)`,

    /**
     * `(timestamp desc, id desc)` keyset with any filter. Tool and model filters are JSONB
     * containment, which the GIN indexes serve; agent, conversation and time ranges use B-trees.
     */
    listTraces(filter: TurnTraceFilter, after: TraceKey | null, take: number | null): Statement {
      const p = new Params();
      const where = traceConditions(filter, p);
      if (after) {
        where.push(
          `("timestamp", id) < (${p.add(after.timestamp)}, ${p.add(encodeText(after.id))})`,
        );
      }
      return {
        text: `SELECT ${TRACE_COLUMNS} FROM ${traces}${whereClause(where)}
ORDER BY "timestamp" DESC, id DESC LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /** Raw sums per bucket, aggregated in SQL; core's `finalizeUsage` rounds them. */
    usage(q: UsageQuery & { bucketMs: number }): Statement {
      const p = new Params();
      const where = [`"timestamp" >= ${p.add(q.since)}`, `"timestamp" < ${p.add(q.until)}`];
      if (q.agentId !== undefined) where.push(`agent_id = ${p.add(encodeText(q.agentId))}`);
      if (q.userId !== undefined) where.push(`user_id = ${p.add(encodeText(q.userId))}`);
      if (q.tenantId !== undefined) where.push(`tenant_id = ${p.add(encodeText(q.tenantId))}`);
      if (!q.includeDeleted) where.push("deleted_at IS NULL");
      const size = p.add(q.bucketMs);
      return {
        text: `SELECT ("timestamp" / ${size}::bigint) * ${size}::bigint AS bucket_start,
       count(*) AS turns,
       sum(total_tokens) AS total_tokens,
       coalesce(sum(calls.prompt_tokens), 0) AS prompt_tokens,
       coalesce(sum(calls.completion_tokens), 0) AS completion_tokens,
       coalesce(sum(calls.cost_usd), 0) AS cost_usd,
       sum(total_latency_ms) AS latency_sum_ms,
       max(total_latency_ms) AS max_latency_ms,
       count(*) FILTER (WHERE errors <> '[]'::jsonb) AS turns_with_errors
  FROM ${traces} t
 CROSS JOIN LATERAL (
   SELECT sum((c->>'promptTokens')::bigint) AS prompt_tokens,
          sum((c->>'completionTokens')::bigint) AS completion_tokens,
          sum((c->>'costUsd')::numeric) AS cost_usd
     FROM jsonb_array_elements(t.llm_calls) AS c
 ) calls
 WHERE ${where.join(" AND ")}
 GROUP BY 1 ORDER BY 1`,
        values: p.values,
      };
    },

    /** Exact counts of what is removed; see `ms_delete_user_data` in lifecycle-functions.ts. */
    deleteUserData: `SELECT deleted_conversations, deleted_messages, deleted_turn_traces
  FROM ${s}.ms_delete_user_data($1, $2)`,

    /**
     * The embedding queue, by id over the partial index `idx_msg_pending` (live rows without an
     * embedding).
     */
    listPending(f: PendingEmbeddingsFilter, after: string | null, take: number | null): Statement {
      const p = new Params();
      const where = [
        "embedding IS NULL",
        "deleted_at IS NULL",
        `role = ANY (${p.add(f.roles)}::text[])`,
      ];
      if (!f.includeFlagged) where.push("NOT is_flagged");
      if (f.userId !== undefined) where.push(`user_id = ${p.add(encodeText(f.userId))}`);
      if (f.tenantId !== undefined) where.push(`tenant_id = ${p.add(encodeText(f.tenantId))}`);
      if (after !== null) where.push(`id > ${p.add(encodeText(after))}`);
      return {
        text: `SELECT ${MESSAGE_COLUMNS} FROM ${messages}${whereClause(where)}
ORDER BY id LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /**
     * Sets each embedding whose message is live and still has the text it was computed from;
     * the row lock makes a concurrent text change either win (no match) or wait.
     */
    setEmbeddings: `UPDATE ${messages} m SET embedding = u.embedding
  FROM jsonb_to_recordset($1::jsonb) AS u(id text, "originalContent" text, embedding double precision[])
 WHERE m.id = u.id AND m.deleted_at IS NULL AND m.original_content = u."originalContent"`,

    /** Semantic search on float8[]; see search-queries.ts. */
    search: (q: SearchQuery, cubes: boolean): Statement => searchStatement(s, q, cubes),

    /** Semantic search with pgvector (migration 3 found the extension); see search-queries.ts. */
    vectorSearch: (q: SearchQuery): Statement => vectorSearchStatement(s, q),

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
  };
}

/** The statements of one schema. */
export type Queries = ReturnType<typeof createQueries>;

/** A conversation list's tenant and soft-delete filter as SQL. */
function conversationConditions(f: ConversationFilter, p: Params): string[] {
  const where: string[] = [];
  if (f.tenantId !== undefined) where.push(`tenant_id = ${p.add(encodeText(f.tenantId))}`);
  if (!f.includeDeleted) where.push("deleted_at IS NULL");
  return where;
}

/** The `queryTurnTraces` filter as SQL; same semantics as core's `matchesTraceFilter`. */
function traceConditions(f: TurnTraceFilter, p: Params): string[] {
  const where: string[] = [];
  if (f.agentId !== undefined) where.push(`agent_id = ${p.add(encodeText(f.agentId))}`);
  if (f.conversationId !== undefined) {
    where.push(`conversation_id = ${p.add(encodeText(f.conversationId))}`);
  }
  if (f.userId !== undefined) where.push(`user_id = ${p.add(encodeText(f.userId))}`);
  if (f.tenantId !== undefined) where.push(`tenant_id = ${p.add(encodeText(f.tenantId))}`);
  if (!f.includeDeleted) where.push("deleted_at IS NULL");
  if (f.since !== undefined) where.push(`"timestamp" >= ${p.add(f.since)}`);
  if (f.until !== undefined) where.push(`"timestamp" < ${p.add(f.until)}`);
  if (f.minTotalTokens !== undefined) where.push(`total_tokens >= ${p.add(f.minTotalTokens)}`);
  if (f.toolName !== undefined) {
    where.push(`tool_traces @> ${p.add(toJsonParam([{ toolName: f.toolName }]))}::jsonb`);
  }
  if (f.model !== undefined) {
    where.push(`llm_calls @> ${p.add(toJsonParam([{ model: f.model }]))}::jsonb`);
  }
  if (f.hasErrors !== undefined)
    where.push(f.hasErrors ? "errors <> '[]'::jsonb" : "errors = '[]'::jsonb");
  return where;
}
