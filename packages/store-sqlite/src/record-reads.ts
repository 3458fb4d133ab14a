import type { Conversation, Message, SearchHit, TurnTrace } from "@message-store/core";
import {
  compareIds,
  cosineSimilarity,
  inScope,
  matchesTraceFilter,
  type RequestOf,
  type SequencedMessage,
  summarizeTraces,
} from "@message-store/core/adapter";
import { conversationView } from "@message-store/core/memory";
import type { SqlRow, SqlStatements } from "./connection/sqlite-connection.js";
import { all, type Condition, cond, limitOf, scopeCondition } from "./sql/scope-conditions.js";
import { conversationOf, messageOf, traceOf } from "./working-set.js";

/*
 * The reads of conversations, messages and traces: one statement each (a statement is one
 * snapshot), filtered, ordered and limited in SQL where the order allows.
 */

type Row = SqlRow & { record: string };
type ConversationRow = Row & { last_message_at: number | null };

const live = (includeDeleted: boolean, alias = ""): Condition =>
  cond(includeDeleted ? "1" : `${alias}deleted_at IS NULL`);

async function conversations(
  db: SqlStatements,
  where: Condition,
  order: string,
  take: number | null,
) {
  const rows = await db.all<ConversationRow>(
    `SELECT record, last_message_at FROM conversations WHERE ${where.sql} ORDER BY ${order}${limitOf(take)}`,
    where.params,
  );
  return rows.map((row) => conversationView(conversationOf(row)));
}

export async function getConversation(
  db: SqlStatements,
  { id, scope, includeDeleted }: RequestOf<"getConversation">,
): Promise<Conversation | null> {
  const where = all(cond("id = ?", id), scopeCondition(scope), live(includeDeleted));
  return (await conversations(db, where, "id", 1))[0] ?? null;
}

export function getConversationsByUserId(
  db: SqlStatements,
  { scope, includeDeleted, page }: RequestOf<"getConversationsByUserId">,
): Promise<Conversation[]> {
  const after = page.after;
  const where = all(
    scopeCondition(scope),
    live(includeDeleted),
    after === null
      ? cond("1")
      : cond(
          "(last_activity_at < ? OR (last_activity_at = ? AND id > ?))",
          after.lastActivityAt,
          after.lastActivityAt,
          after.id,
        ),
  );
  return conversations(db, where, "last_activity_at DESC, id", page.take);
}

export function listConversations(
  db: SqlStatements,
  { scope, includeDeleted, page }: RequestOf<"listConversations">,
): Promise<Conversation[]> {
  const after = page.after === null ? cond("1") : cond("id > ?", page.after);
  return conversations(
    db,
    all(scopeCondition(scope), live(includeDeleted), after),
    "id",
    page.take,
  );
}

export async function getMessage(
  db: SqlStatements,
  { id, scope, includeDeleted }: RequestOf<"getMessage">,
): Promise<Message | null> {
  const where = all(cond("id = ?", id), scopeCondition(scope), live(includeDeleted));
  const [row] = await db.all<Row>(`SELECT record FROM messages WHERE ${where.sql}`, where.params);
  return row ? messageOf(row) : null;
}

export async function getMessagesByConversationId(
  db: SqlStatements,
  { conversationId, scope, includeDeleted, page }: RequestOf<"getMessagesByConversationId">,
): Promise<SequencedMessage[]> {
  const after = page.after;
  const where = all(
    cond("conversation_id = ?", conversationId),
    scopeCondition(scope),
    live(includeDeleted),
    after === null
      ? cond("1")
      : cond(
          "(timestamp > ? OR (timestamp = ? AND sequence > ?))",
          after.timestamp,
          after.timestamp,
          after.sequence,
        ),
  );
  const rows = await db.all<Row & { sequence: number }>(
    `SELECT record, sequence FROM messages WHERE ${where.sql} ORDER BY timestamp, sequence${limitOf(page.take)}`,
    where.params,
  );
  return rows.map((row) => ({ message: messageOf(row), sequence: row.sequence }));
}

export async function getImmediateContext(
  db: SqlStatements,
  { conversationId, scope, n }: RequestOf<"getImmediateContext">,
): Promise<Message[]> {
  const where = all(
    cond("conversation_id = ? AND deleted_at IS NULL AND is_flagged = 0", conversationId),
    scopeCondition(scope),
  );
  const rows = await db.all<Row>(
    `SELECT record FROM messages WHERE ${where.sql} ORDER BY timestamp DESC, sequence DESC${limitOf(n)}`,
    where.params,
  );
  return rows.reverse().map(messageOf);
}

export async function getTurnTraceByMessageId(
  db: SqlStatements,
  { id, scope, includeDeleted }: RequestOf<"getTurnTraceByMessageId">,
): Promise<TurnTrace | null> {
  const where = all(cond("message_id = ?", id), scopeCondition(scope), live(includeDeleted));
  const [row] = await db.all<Row>(
    `SELECT record FROM turn_traces WHERE ${where.sql}`,
    where.params,
  );
  return row ? traceOf(row) : null;
}

/** Rows of traces read per statement while a filtered list looks for its page. */
const TRACE_BATCH = 256;

/**
 * Traces newest first, read in batches along the `(timestamp desc, id desc)` index and filtered
 * with core's `matchesTraceFilter` (the reference), until the page is full. One read
 * transaction: every batch sees the same snapshot.
 */
export async function queryTurnTraces(
  db: SqlStatements,
  { filter, scope, page }: RequestOf<"queryTurnTraces">,
): Promise<TurnTrace[]> {
  const out: TurnTrace[] = [];
  let after = page.after;
  const bounds = all(
    scopeCondition(scope),
    live(filter.includeDeleted === true),
    filter.agentId === undefined ? cond("1") : cond("agent_id = ?", filter.agentId),
    filter.conversationId === undefined
      ? cond("1")
      : cond("conversation_id = ?", filter.conversationId),
  );
  for (;;) {
    const where = all(
      bounds,
      after === null
        ? cond("1")
        : cond(
            "(timestamp < ? OR (timestamp = ? AND id < ?))",
            after.timestamp,
            after.timestamp,
            after.id,
          ),
    );
    const rows = await db.all<Row>(
      `SELECT record FROM turn_traces WHERE ${where.sql} ORDER BY timestamp DESC, id DESC LIMIT ${TRACE_BATCH}`,
      where.params,
    );
    for (const row of rows) {
      const trace = traceOf(row);
      if (matchesTraceFilter(trace, { ...filter, ...scope })) out.push(trace);
      if (page.take !== null && out.length >= page.take) return out;
    }
    if (rows.length < TRACE_BATCH) return out;
    const last = traceOf(rows[rows.length - 1]!);
    after = { timestamp: last.timestamp, id: last.id };
  }
}

export async function summarizeUsage(
  db: SqlStatements,
  { query, scope }: RequestOf<"summarizeUsage">,
) {
  const full = { ...query, ...scope };
  const where = all(
    scopeCondition(scope),
    cond("timestamp >= ? AND timestamp < ?", query.since, query.until),
  );
  const rows = await db.all<Row>(`SELECT record FROM turn_traces WHERE ${where.sql}`, where.params);
  return summarizeTraces(rows.map(traceOf), full);
}

/** Exact cosine over every candidate of the query's length (the index narrows the candidates). */
export async function searchMessages(
  db: SqlStatements,
  { query, scope }: RequestOf<"searchMessages">,
): Promise<SearchHit[]> {
  const where = all(
    cond("embedding_length = ? AND is_flagged = 0", query.embedding.length),
    scopeCondition(scope),
    live(query.includeDeleted),
    query.conversationId === undefined
      ? cond("1")
      : cond("conversation_id = ?", query.conversationId),
  );
  const rows = await db.all<Row>(`SELECT record FROM messages WHERE ${where.sql}`, where.params);
  const hits: SearchHit[] = [];
  for (const row of rows) {
    const message = messageOf(row);
    if (!inScope(message, scope) || message.embedding === null) continue;
    const score = cosineSimilarity(message.embedding, query.embedding);
    if (score !== null) hits.push({ message, score });
  }
  // Rounded as core rounds, so the cut keeps the ties core orders by id.
  const rounded = (score: number) => Math.round(score * 1e9);
  hits.sort(
    (a, b) => rounded(b.score) - rounded(a.score) || compareIds(a.message.id, b.message.id),
  );
  return hits.slice(0, query.limit);
}

export async function listPendingEmbeddings(
  db: SqlStatements,
  { filter, scope, page }: RequestOf<"listPendingEmbeddings">,
): Promise<Message[]> {
  const where = all(
    cond("embedding_length IS NULL AND deleted_at IS NULL"),
    cond(`role IN (${filter.roles.map(() => "?").join(", ")})`, ...filter.roles),
    filter.includeFlagged ? cond("1") : cond("is_flagged = 0"),
    scopeCondition(scope),
    page.after === null ? cond("1") : cond("id > ?", page.after),
  );
  const rows = await db.all<Row>(
    `SELECT record FROM messages WHERE ${where.sql} ORDER BY id${limitOf(page.take)}`,
    where.params,
  );
  return rows.map(messageOf);
}
