import type { Scope } from "../models/queries.js";
import type { TextSearchHit } from "../models/text-search.js";
import type { ConversationKey } from "../paging/cursor.js";
import { compareConversationKeys } from "../paging/ordering.js";
import { containsFolded, foldAscii } from "../search/text-match.js";
import type { RequestOf } from "../store/operation-table.js";
import { inScope } from "../store/scope.js";
import { cloneMessage } from "./clone.js";
import { scopedConversationIds } from "./memory-queries.js";
import {
  conversationView,
  lastActivityAt,
  type MemoryState,
  type MessageEntry,
  type StoredConversation,
} from "./memory-state.js";

/** The newest message of a transcript (walked backwards) whose text contains the needle. */
function newestMatch(
  transcript: readonly MessageEntry[] | undefined,
  needle: string,
  includeDeleted: boolean,
  scope: Scope,
): MessageEntry | undefined {
  if (!transcript) return undefined;
  for (let i = transcript.length - 1; i >= 0; i--) {
    const entry = transcript[i]!;
    if (!includeDeleted && entry.message.deletedAt !== null) continue;
    if (!inScope(entry.message, scope)) continue;
    if (containsFolded(entry.message.originalContent, needle)) return entry;
  }
  return undefined;
}

/**
 * `searchConversations` from memory: the conversations in the scope in
 * `(lastActivityAt desc, id asc)` order after the cursor, each tested on its title and then its
 * transcript from the newest message back, until `page.take` hits are found.
 */
export function searchConversations(
  state: MemoryState,
  { filter, page, scope }: RequestOf<"searchConversations">,
): TextSearchHit[] {
  const rows: { c: StoredConversation; key: ConversationKey }[] = [];
  for (const id of scopedConversationIds(state, scope)) {
    const c = state.conversations.get(id)!;
    if (!filter.includeDeleted && c.deletedAt !== null) continue;
    if (!inScope(c, scope)) continue;
    const key = { lastActivityAt: lastActivityAt(c), id };
    if (page.after === null || compareConversationKeys(key, page.after) > 0) rows.push({ c, key });
  }
  rows.sort((a, b) => compareConversationKeys(a.key, b.key));
  const needle = foldAscii(filter.text);
  const hits: TextSearchHit[] = [];
  for (const { c } of rows) {
    if (page.take !== null && hits.length >= page.take) break;
    const titleMatch = containsFolded(c.title, needle);
    const match = newestMatch(
      state.messagesByConversation.get(c.id),
      needle,
      filter.includeDeleted,
      scope,
    );
    if (titleMatch || match) {
      hits.push({
        conversation: conversationView(c),
        titleMatch,
        message: match ? cloneMessage(match.message) : null,
      });
    }
  }
  return hits;
}
