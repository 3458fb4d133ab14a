import type { Scope, TextSearchFilter } from "@message-store/core";
import { type ConversationKey, foldAscii, type PageRequest } from "@message-store/core/adapter";
import { encodeText } from "../nul-codec.js";
import { CONVERSATION_READ, MESSAGE, type StoredField } from "./columns.js";
import { Params, type Statement } from "./params.js";
import { quoteIdent } from "./quote.js";
import { ownerConditions } from "./scope-conditions.js";

/** Prefix of the matched message's columns in a text-search row. */
export const MESSAGE_PREFIX = "m_";

/** `q."column" AS "<prefix>key", …` */
function qualifiedList(fields: readonly StoredField[], q: string, prefix = ""): string {
  return fields
    .map((f) => `${q}.${quoteIdent(f.column.name)} AS ${quoteIdent(prefix + f.key)}`)
    .join(",\n  ");
}

/** Characters ARE regular expressions give a meaning (escaped with a backslash). */
const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/g;

/**
 * "`column` contains the text": a byte-wise `strpos` on `lower(column COLLATE "C")`, which folds
 * ASCII letters only whatever the database's locale (core's `foldAscii`), against the folded and
 * NUL-escaped needle. Stored text is NUL-escaped too (U+0000 → U+0001 U+0001, U+0001 → U+0001
 * U+0002), so a needle starting with U+0001 or U+0002 could match from the middle of an escape:
 * then an anchored regular expression that steps over whole escapes is used instead.
 */
function contains(column: string, text: string, p: Params): string {
  const needle = encodeText(foldAscii(text));
  const haystack = `lower(${column} COLLATE "C")`;
  if (needle[0] !== "\u0001" && needle[0] !== "\u0002") {
    return `strpos(${haystack}, ${p.add(needle)}) > 0`;
  }
  const literal = needle.replace(REGEX_SPECIAL, (c) => `\\${c}`);
  return `${haystack} ~ ${p.add(`^(?:[^\u0001]|\u0001[\u0001\u0002])*${literal}`)}`;
}

/**
 * `searchConversations`: conversations in `(last_activity_at desc, id asc)` order after the
 * cursor (over `idx_conv_user_activity` with a user; a sort of the scoped conversations
 * without), each joined to its newest matching message by a backward walk of `idx_msg_conv`;
 * kept when the title or a message matches; at most `take`. No index serves the substring test:
 * the walk reads the text of every conversation it passes.
 */
export function textSearchStatement(
  schema: string,
  scope: Scope,
  filter: Omit<TextSearchFilter, "userId" | "tenantId">,
  page: PageRequest<ConversationKey>,
): Statement {
  const s = quoteIdent(schema);
  const p = new Params();
  const live = filter.includeDeleted ? "" : " AND m.deleted_at IS NULL";
  const where = ownerConditions(scope, p, "c.");
  if (!filter.includeDeleted) where.push("c.deleted_at IS NULL");
  if (page.after) {
    const at = p.add(page.after.lastActivityAt);
    where.push(`c.last_activity_at <= ${at}`);
    where.push(`(c.last_activity_at < ${at} OR c.id > ${p.add(encodeText(page.after.id))})`);
  }
  const messageMatch = contains("m.original_content", filter.text, p);
  const titleMatch = contains("c.title", filter.text, p);
  where.push(`(${titleMatch} OR m.id IS NOT NULL)`);
  return {
    text: `SELECT ${qualifiedList(CONVERSATION_READ, "c")},
  ${qualifiedList(MESSAGE, "m", MESSAGE_PREFIX)},
  COALESCE(${titleMatch}, false) AS "titleMatch"
FROM ${s}.conversations c
LEFT JOIN LATERAL (
  SELECT * FROM ${s}.messages m
   WHERE m.conversation_id = c.id${live} AND ${messageMatch}
   ORDER BY m."timestamp" DESC, m.seq DESC LIMIT 1
) m ON true
WHERE ${where.join("\n  AND ")}
ORDER BY c.last_activity_at DESC, c.id
LIMIT ${p.add(page.take)}`,
    values: p.values,
  };
}
