import type {
  Conversation,
  Message,
  PendingEmbeddingsFilter,
  SearchHit,
  SearchQuery,
  TextSearchFilter,
  TextSearchHit,
  TurnTrace,
} from "@message-store/core";
import {
  type ConversationKey,
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  compareTraceKeys,
  containsFolded,
  cosineSimilarity,
  foldAscii,
  type MessageKey,
  matchesTraceFilter,
  type PageRequest,
  type SequencedMessage,
  sliceAfter,
  type TraceFilter,
  type TraceKey,
} from "@message-store/core/adapter";
import { conversationOf, messageOf, type Row, traceOf } from "./record-rows.js";

/*
 * What the lists, searches and aggregates make of one snapshot of a scope (`SNAPSHOT` in
 * lua/read-scripts.ts): the same filters, orders and pages as every adapter, from core's helpers.
 * Whole-scope reads ordered in memory keep the example small; a production adapter would keep
 * sorted sets (ZRANGEBYLEX / ZRANGE BYSCORE) and walk them inside the script.
 */

/** One conversation of a snapshot, with its messages and traces when they were asked for. */
export interface SnapshotEntry {
  conversation: Conversation;
  messages: SequencedMessage[];
  traces: TurnTrace[];
}

export function snapshotOf(reply: readonly [Row, Row[], Row[]][]): SnapshotEntry[] {
  return reply.map(([c, ms, ts]) => ({
    conversation: conversationOf(c),
    messages: ms.map(messageOf),
    traces: ts.map(traceOf),
  }));
}

type Deletable = { deletedAt: number | null };
const shown = (includeDeleted: boolean) => (r: Deletable) => includeDeleted || r.deletedAt === null;
const conversationKey = (c: Conversation): ConversationKey => ({
  lastActivityAt: c.lastActivityAt,
  id: c.id,
});
const messageKey = (m: SequencedMessage): MessageKey => ({
  timestamp: m.message.timestamp,
  sequence: m.sequence,
});
const traceKey = (t: TurnTrace): TraceKey => ({ timestamp: t.timestamp, id: t.id });
const byMessageKey = (a: SequencedMessage, b: SequencedMessage) =>
  compareMessageKeys(messageKey(a), messageKey(b));

/** The conversations, soft-deleted ones only with `includeDeleted`, in activity order. */
function byActivity(entries: SnapshotEntry[], includeDeleted: boolean): SnapshotEntry[] {
  return entries
    .filter((e) => shown(includeDeleted)(e.conversation))
    .sort((a, b) =>
      compareConversationKeys(conversationKey(a.conversation), conversationKey(b.conversation)),
    );
}

export function conversationsByActivity(
  entries: SnapshotEntry[],
  includeDeleted: boolean,
  page: PageRequest<ConversationKey>,
): Conversation[] {
  const sorted = byActivity(entries, includeDeleted).map((e) => e.conversation);
  return sliceAfter(sorted, page, conversationKey, compareConversationKeys);
}

export function conversationsById(
  entries: SnapshotEntry[],
  includeDeleted: boolean,
  page: PageRequest<string>,
): Conversation[] {
  const sorted = entries
    .map((e) => e.conversation)
    .filter(shown(includeDeleted))
    .sort((a, b) => compareIds(a.id, b.id));
  return sliceAfter(sorted, page, (c) => c.id, compareIds);
}

/** The transcript of the (one) conversation in the snapshot, in `(timestamp, sequence)` order. */
export function transcript(entries: SnapshotEntry[], includeDeleted: boolean): SequencedMessage[] {
  return entries
    .flatMap((e) => e.messages)
    .filter((m) => shown(includeDeleted)(m.message))
    .sort(byMessageKey);
}

export function transcriptPage(
  entries: SnapshotEntry[],
  includeDeleted: boolean,
  page: PageRequest<MessageKey>,
): SequencedMessage[] {
  return sliceAfter(transcript(entries, includeDeleted), page, messageKey, compareMessageKeys);
}

export function tracesPage(
  entries: SnapshotEntry[],
  filter: TraceFilter,
  page: PageRequest<TraceKey>,
): TurnTrace[] {
  const matching = entries
    .flatMap((e) => e.traces)
    .filter((t) => matchesTraceFilter(t, filter))
    .sort((a, b) => compareTraceKeys(traceKey(a), traceKey(b)));
  return sliceAfter(matching, page, traceKey, compareTraceKeys);
}

/** Walks the conversations in activity order after `page.after` and stops at `page.take` hits. */
export function textSearch(
  entries: SnapshotEntry[],
  filter: Omit<TextSearchFilter, "userId" | "tenantId">,
  page: PageRequest<ConversationKey>,
): TextSearchHit[] {
  const needle = foldAscii(filter.text);
  const walk = sliceAfter(
    byActivity(entries, filter.includeDeleted),
    { after: page.after, take: null },
    (e) => conversationKey(e.conversation),
    compareConversationKeys,
  );
  const hits: TextSearchHit[] = [];
  for (const { conversation, messages } of walk) {
    if (page.take !== null && hits.length >= page.take) break;
    const titleMatch = containsFolded(conversation.title, needle);
    let newest: SequencedMessage | null = null;
    for (const m of messages) {
      if (!shown(filter.includeDeleted)(m.message)) continue;
      if (newest && byMessageKey(m, newest) < 0) continue;
      if (containsFolded(m.message.originalContent, needle)) newest = m;
    }
    if (titleMatch || newest)
      hits.push({ conversation, titleMatch, message: newest?.message ?? null });
  }
  return hits;
}

export function pendingEmbeddings(
  entries: SnapshotEntry[],
  filter: Omit<PendingEmbeddingsFilter, "userId" | "tenantId">,
  page: PageRequest<string>,
): Message[] {
  const pending = entries
    .flatMap((e) => e.messages.map((m) => m.message))
    .filter(
      (m) =>
        m.deletedAt === null &&
        m.embedding === null &&
        filter.roles.includes(m.role) &&
        (filter.includeFlagged || !m.isFlagged),
    )
    .sort((a, b) => compareIds(a.id, b.id));
  return sliceAfter(pending, page, (m) => m.id, compareIds);
}

/** Brute force: every candidate message scored; core rounds, sorts and cuts. */
export function semanticSearch(
  entries: SnapshotEntry[],
  query: Omit<SearchQuery, "userId" | "tenantId">,
): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const { message } of entries.flatMap((e) => e.messages)) {
    if (message.isFlagged || message.embedding === null) continue;
    if (!shown(query.includeDeleted)(message)) continue;
    const score = cosineSimilarity(query.embedding, message.embedding);
    if (score !== null) hits.push({ message, score });
  }
  return hits;
}
