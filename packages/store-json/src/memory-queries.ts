import type {
  Conversation,
  ConversationFilter,
  Message,
  PendingEmbeddingsFilter,
  SearchHit,
  SearchQuery,
  TurnTrace,
  TurnTraceFilter,
  UsageBucket,
  UsageQuery,
} from "@message-store/core";
import {
  type ConversationKey,
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  cosineSimilarity,
  type MessageKey,
  matchesTraceFilter,
  type PageRequest,
  type SequencedMessage,
  sliceAfter,
  summarizeTraces,
  type TraceKey,
} from "@message-store/core/adapter";
import { cloneMessage, cloneTrace } from "./clone.js";
import {
  compareTracesAscending,
  conversationView,
  lastActivityAt,
  type MemoryState,
  type MessageEntry,
  type StoredConversation,
} from "./memory-state.js";
import { lowerBound } from "./sorted-array.js";

/*
 * Reads, served from memory. Every record handed out is a copy, so a caller mutating it cannot
 * change what the store holds. Filters apply while walking from the cursor, so a page is always
 * full when there are enough matching rows.
 */

const visible = (r: { deletedAt: number | null }, includeDeleted: boolean) =>
  includeDeleted || r.deletedAt === null;

function matchesConversation(c: StoredConversation, filter: ConversationFilter): boolean {
  return (
    visible(c, filter.includeDeleted) &&
    (filter.tenantId === undefined || c.tenantId === filter.tenantId)
  );
}

/**
 * Rows of `sorted` after `after` that `keep` accepts, at most `take`: a binary search to the
 * cursor, then a walk.
 */
function takeAfter<R, K>(
  sorted: readonly R[],
  request: PageRequest<K>,
  keyOf: (row: R) => K,
  compare: (a: K, b: K) => number,
  keep: (row: R) => boolean,
): R[] {
  const after = request.after;
  const start =
    after === null ? 0 : lowerBound(sorted, after, (r, k) => (compare(keyOf(r), k) <= 0 ? -1 : 1));
  const out: R[] = [];
  for (
    let i = start;
    i < sorted.length && (request.take === null || out.length < request.take);
    i++
  ) {
    if (keep(sorted[i]!)) out.push(sorted[i]!);
  }
  return out;
}

/** A user's conversations in `(lastActivityAt desc, id asc)` order, after `page.after`. */
export function listConversations(
  state: MemoryState,
  userId: string,
  page: PageRequest<ConversationKey>,
  filter: ConversationFilter,
): Conversation[] {
  const ids = state.conversationIdsByUser.get(userId);
  if (!ids) return [];
  const rows: { c: StoredConversation; key: ConversationKey }[] = [];
  for (const id of ids) {
    const c = state.conversations.get(id)!;
    if (matchesConversation(c, filter))
      rows.push({ c, key: { lastActivityAt: lastActivityAt(c), id } });
  }
  rows.sort((a, b) => compareConversationKeys(a.key, b.key));
  return sliceAfter(rows, page, (r) => r.key, compareConversationKeys).map((r) =>
    conversationView(r.c),
  );
}

/** Conversations (of `userId` when not null) by id in code-point order, after `page.after`. */
export function listConversationsById(
  state: MemoryState,
  userId: string | null,
  page: PageRequest<string>,
  filter: ConversationFilter,
): Conversation[] {
  let ids: readonly string[] = state.conversationIds;
  if (userId !== null) ids = [...(state.conversationIdsByUser.get(userId) ?? [])].sort(compareIds);
  else if (filter.tenantId !== undefined) ids = state.conversationIdsByTenant.get(filter.tenantId);
  const rows = takeAfter(
    ids,
    page,
    (id) => id,
    compareIds,
    (id) => matchesConversation(state.conversations.get(id)!, filter),
  );
  return rows.map((id) => conversationView(state.conversations.get(id)!));
}

const messageKey = (e: MessageEntry): MessageKey => ({
  timestamp: e.message.timestamp,
  sequence: e.sequence,
});

/** A transcript page in `(timestamp, sequence)` order. */
export function listMessages(
  state: MemoryState,
  conversationId: string,
  page: PageRequest<MessageKey>,
  includeDeleted: boolean,
): SequencedMessage[] {
  const entries = state.messagesByConversation.get(conversationId) ?? [];
  const rows = includeDeleted
    ? sliceAfter(entries, page, messageKey, compareMessageKeys)
    : takeAfter(entries, page, messageKey, compareMessageKeys, (e) => e.message.deletedAt === null);
  return rows.map((e) => ({ message: cloneMessage(e.message), sequence: e.sequence }));
}

/** The newest `n` live, non-flagged messages, oldest first: walks back from the end of the transcript. */
export function immediateContext(state: MemoryState, conversationId: string, n: number): Message[] {
  const entries = state.messagesByConversation.get(conversationId) ?? [];
  const out: Message[] = [];
  for (let i = entries.length - 1; i >= 0 && out.length < n; i--) {
    const m = entries[i]!.message;
    if (!m.isFlagged && m.deletedAt === null) out.push(cloneMessage(m));
  }
  return out.reverse();
}

/** The smallest set of traces, in ascending order, that can hold every match of `filter`. */
function traceCandidates(
  state: MemoryState,
  filter: { agentId?: string; userId?: string; tenantId?: string; conversationId?: string },
): readonly TurnTrace[] {
  if (filter.conversationId !== undefined) {
    const found: TurnTrace[] = [];
    for (const { message } of state.messagesByConversation.get(filter.conversationId) ?? []) {
      const trace = state.traceOf(message.id);
      if (trace) found.push(trace);
    }
    return found.sort(compareTracesAscending);
  }
  let best: readonly TurnTrace[] = state.tracesByTime;
  const consider = (list: readonly TurnTrace[]) => {
    if (list.length < best.length) best = list;
  };
  if (filter.agentId !== undefined) consider(state.tracesByAgent.get(filter.agentId));
  if (filter.userId !== undefined) consider(state.tracesByUser.get(filter.userId));
  if (filter.tenantId !== undefined) consider(state.tracesByTenant.get(filter.tenantId));
  return best;
}

const byTimestamp = (t: TurnTrace, timestamp: number) => t.timestamp - timestamp;
const byTraceKey = (t: TurnTrace, k: TraceKey) =>
  t.timestamp - k.timestamp || compareIds(t.id, k.id);

/**
 * Matching traces in `(timestamp desc, id desc)` order after `page.after`: the candidates are
 * kept ascending, so this walks backwards from the first row below `until` and the cursor.
 */
export function listTraces(
  state: MemoryState,
  filter: TurnTraceFilter,
  page: PageRequest<TraceKey>,
): TurnTrace[] {
  const source = traceCandidates(state, filter);
  let end = source.length;
  if (filter.until !== undefined) end = lowerBound(source, filter.until, byTimestamp);
  if (page.after !== null) end = Math.min(end, lowerBound(source, page.after, byTraceKey));
  const out: TurnTrace[] = [];
  for (let i = end - 1; i >= 0 && (page.take === null || out.length < page.take); i--) {
    const t = source[i]!;
    if (filter.since !== undefined && t.timestamp < filter.since) break;
    if (matchesTraceFilter(t, filter)) out.push(cloneTrace(t));
  }
  return out;
}

/** Usage buckets via core's `summarizeTraces`, over the traces inside the time window only. */
export function summarizeUsage(state: MemoryState, query: UsageQuery): UsageBucket[] {
  const source = traceCandidates(state, query);
  const from = lowerBound(source, query.since, byTimestamp);
  const to = lowerBound(source, query.until, byTimestamp);
  return summarizeTraces(source.slice(from, Math.max(from, to)), query);
}

/** The messages a search or a pending scan must look at: of one conversation, user or tenant, or all. */
function* messageCandidates(
  state: MemoryState,
  filter: { conversationId?: string; userId?: string; tenantId?: string },
): Iterable<Message> {
  if (filter.conversationId !== undefined) {
    for (const e of state.messagesByConversation.get(filter.conversationId) ?? []) yield e.message;
    return;
  }
  const ids =
    filter.userId !== undefined
      ? state.conversationIdsByUser.get(filter.userId)
      : filter.tenantId !== undefined
        ? state.conversationIdsByTenant.get(filter.tenantId)
        : undefined;
  if (ids === undefined && (filter.userId !== undefined || filter.tenantId !== undefined)) return;
  if (ids === undefined) {
    for (const e of state.messages.values()) yield e.message;
    return;
  }
  for (const id of ids) {
    for (const e of state.messagesByConversation.get(id) ?? []) yield e.message;
  }
}

const round = (score: number) => Math.round(score * 1e9) / 1e9;

/**
 * Brute-force cosine similarity over the candidate messages, filtered before ranking. Ranked on
 * the rounded score, as core ranks the final list, so the cut at `limit` agrees with it on
 * near-ties.
 */
export function searchMessages(state: MemoryState, query: SearchQuery): SearchHit[] {
  const hits: { message: Message; score: number }[] = [];
  for (const message of messageCandidates(state, query)) {
    if (message.isFlagged || message.embedding === null) continue;
    if (!visible(message, query.includeDeleted)) continue;
    if (query.userId !== undefined && message.userId !== query.userId) continue;
    if (query.tenantId !== undefined && message.tenantId !== query.tenantId) continue;
    const score = cosineSimilarity(message.embedding, query.embedding);
    if (score !== null) hits.push({ message, score: round(score) });
  }
  hits.sort((a, b) => b.score - a.score || compareIds(a.message.id, b.message.id));
  return hits
    .slice(0, query.limit)
    .map((h) => ({ message: cloneMessage(h.message), score: h.score }));
}

/** Pending messages by id after `page.after`, from the pending index. */
export function pendingEmbeddings(
  state: MemoryState,
  filter: PendingEmbeddingsFilter,
  page: PageRequest<string>,
): Message[] {
  const roles = new Set<string>(filter.roles);
  const out: Message[] = [];
  state.pendingIndex().scan(page.after, page.take, (id) => {
    const m = state.messages.get(id)!.message;
    const ok =
      roles.has(m.role) &&
      (filter.includeFlagged || !m.isFlagged) &&
      (filter.userId === undefined || m.userId === filter.userId) &&
      (filter.tenantId === undefined || m.tenantId === filter.tenantId);
    if (ok) out.push(cloneMessage(m));
    return ok;
  });
  return out;
}
