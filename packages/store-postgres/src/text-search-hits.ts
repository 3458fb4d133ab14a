import type { TextSearchHit } from "@message-store/core";
import { toConversation, toMessage } from "./row-mapping.js";
import { MESSAGE_PREFIX } from "./sql/text-search-queries.js";

type Row = Record<string, unknown>;

/**
 * The rows of `textSearchStatement` as hits: the conversation's columns under the model's keys,
 * the matched message's under `m_<key>` (all null when only the title matched).
 */
export function toTextSearchHits(rows: Row[], schema: string): TextSearchHit[] {
  return rows.map((row) => {
    const conversation: Row = {};
    const message: Row = {};
    for (const [key, value] of Object.entries(row)) {
      if (key === "titleMatch") continue;
      if (key.startsWith(MESSAGE_PREFIX)) message[key.slice(MESSAGE_PREFIX.length)] = value;
      else conversation[key] = value;
    }
    return {
      conversation: toConversation(conversation, `${schema}.conversations`),
      titleMatch: row.titleMatch === true,
      message: message.id == null ? null : toMessage(message, `${schema}.messages`),
    };
  });
}
