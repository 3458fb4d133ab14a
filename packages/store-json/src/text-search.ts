import type { TextSearchFilter, TextSearchHit } from "@message-store/core";
import {
  type ConversationKey,
  compareConversationKeys,
  containsFolded,
  foldAscii,
  type PageRequest,
} from "@message-store/core/adapter";
import { cloneMessage } from "./clone.js";
import {
  conversationView,
  lastActivityAt,
  type MemoryState,
  type MessageEntry,
  type StoredConversation,
} from "./memory-state.js";

/** The conversation ids a filter can match: one user's, one tenant's, or all. */
function candidateIds(state: MemoryState, filter: TextSearchFilter): Iterable<string> {
  if (filter.userId !== undefined) return state.conversationIdsByUser.get(filter.userId) ?? [];
  if (filter.tenantId !== undefined) return state.conversationIdsByTenant.get(filter.tenantId);
  return state.conversations.keys();
}

/** The newest message of a transcript (walked backwards) whose text contains the needle. */
function newestMatch(
  transcript: readonly MessageEntry[] | undefined,
  needle: string,
  includeDeleted: boolean,
): MessageEntry | undefined {
  if (!transcript) return undefined;
  for (let i = transcript.length - 1; i >= 0; i--) {
    const entry = transcript[i]!;
    if (!includeDeleted && entry.message.deletedAt !== null) continue;
    if (containsFolded(entry.message.originalContent, needle)) return entry;
  }
  return undefined;
}

/**
 * `searchConversations` from memory: the conversations in the filter's scope in
 * `(lastActivityAt desc, id asc)` order after the cursor, each tested on its title and then its
 * transcript from the newest message back, until `page.take` hits are found.
 */
export function searchConversations(
  state: MemoryState,
  filter: TextSearchFilter,
  page: PageRequest<ConversationKey>,
): TextSearchHit[] {
  const rows: { c: StoredConversation; key: ConversationKey }[] = [];
  for (const id of candidateIds(state, filter)) {
    const c = state.conversations.get(id)!;
    if (!filter.includeDeleted && c.deletedAt !== null) continue;
    if (filter.userId !== undefined && c.userId !== filter.userId) continue;
    if (filter.tenantId !== undefined && c.tenantId !== filter.tenantId) continue;
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
