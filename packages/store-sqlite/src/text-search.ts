import type { TextSearchHit } from "@message-store/core";
import { containsFolded, foldAscii, type RequestOf } from "@message-store/core/adapter";
import { conversationView } from "@message-store/core/memory";
import type { SqlRow, SqlStatements } from "./connection/sqlite-connection.js";
import { all, type Condition, cond, limitOf, scopeCondition } from "./sql/scope-conditions.js";
import { conversationOf, messageOf } from "./working-set.js";

type Row = SqlRow & { record: string };

/*
 * `searchConversations` in SQL: SQLite's built-in `lower()` folds exactly the 26 ASCII capitals
 * (without the ICU extension, which this adapter never loads), so `instr(lower(text), needle)`
 * with the needle passed through core's `foldAscii` is core's `containsFolded`.
 */

const contains = (column: string, needle: string): Condition =>
  cond(`instr(lower(${column}), ?) > 0`, needle);

/** Which messages of a conversation count: live unless `includeDeleted`, in the scope. */
function messageFilter(
  request: RequestOf<"searchConversations">,
  needle: string,
  alias: string,
): Condition {
  return all(
    request.filter.includeDeleted ? cond("1") : cond(`${alias}deleted_at IS NULL`),
    scopeCondition(request.scope, alias),
    contains(`${alias}original_content`, needle),
  );
}

/**
 * The page of matching conversations in `(lastActivityAt desc, id asc)` order, found by one
 * statement that stops after `page.take` hits, then each hit's newest matching message. Run in
 * one read transaction.
 */
export async function searchConversations(
  db: SqlStatements,
  request: RequestOf<"searchConversations">,
): Promise<TextSearchHit[]> {
  const { filter, scope, page } = request;
  const needle = foldAscii(filter.text);
  const inMessage = messageFilter(request, needle, "m.");
  const where = all(
    scopeCondition(scope, "c."),
    filter.includeDeleted ? cond("1") : cond("c.deleted_at IS NULL"),
    page.after === null
      ? cond("1")
      : cond(
          "(c.last_activity_at < ? OR (c.last_activity_at = ? AND c.id > ?))",
          page.after.lastActivityAt,
          page.after.lastActivityAt,
          page.after.id,
        ),
    {
      sql: `instr(lower(c.title), ?) > 0 OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND ${inMessage.sql})`,
      params: [needle, ...inMessage.params],
    },
  );
  const rows = await db.all<Row & { last_message_at: number | null }>(
    `SELECT c.record, c.last_message_at FROM conversations c WHERE ${where.sql} ORDER BY c.last_activity_at DESC, c.id${limitOf(page.take)}`,
    where.params,
  );
  const hits: TextSearchHit[] = [];
  const newest = messageFilter(request, needle, "");
  for (const row of rows) {
    const conversation = conversationView(conversationOf(row));
    const [match] = await db.all<Row>(
      `SELECT record FROM messages WHERE conversation_id = ? AND ${newest.sql} ORDER BY timestamp DESC, sequence DESC LIMIT 1`,
      [conversation.id, ...newest.params],
    );
    hits.push({
      conversation,
      titleMatch: containsFolded(conversation.title, needle),
      message: match ? messageOf(match) : null,
    });
  }
  return hits;
}
