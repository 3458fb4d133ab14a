import { cosineSimilarity } from "../analytics/cosine.js";
import { matchesTraceFilter } from "../analytics/trace-filter.js";
import { summarizeTraces } from "../analytics/usage.js";
import type { Conversation } from "../models/conversation.js";
import type { Message } from "../models/message.js";
import type { Scope, SearchHit, UsageBucket } from "../models/queries.js";
import type { TurnTrace } from "../models/turn-trace.js";
import type { ConversationKey, MessageKey, TraceKey } from "../paging/cursor.js";
import { compareConversationKeys, compareIds, compareMessageKeys } from "../paging/ordering.js";
import { type PageRequest, sliceAfter } from "../paging/page-request.js";
import type { SequencedMessage } from "../store/contract/requests.js";
import type { RequestOf } from "../store/operation-table.js";
import { inScope } from "../store/scope.js";
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
 * change what the store holds. The scope and the filters apply while walking from the cursor, so
 * a page is always full when there are enough matching rows.
 */

const visible = (r: { deletedAt: number | null }, includeDeleted: boolean) =>
  includeDeleted || r.deletedAt === null;

const unscoped = (scope: Scope) => scope.userId === undefined && scope.tenantId === undefined;

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

/** The ids of the conversations a scope can hold: one user's, one tenant's, or all. */
export function scopedConversationIds(state: MemoryState, scope: Scope): Iterable<string> {
  if (scope.userId !== undefined) return state.conversationIdsByUser.get(scope.userId) ?? [];
  if (scope.tenantId !== undefined) return state.conversationIdsByTenant.get(scope.tenantId);
  return state.conversations.keys();
}

/** A user's conversations in `(lastActivityAt desc, id asc)` order, after `page.after`. */
export function listConversationsByUser(
  state: MemoryState,
  { scope, includeDeleted, page }: RequestOf<"getConversationsByUserId">,
): Conversation[] {
  const rows: { c: StoredConversation; key: ConversationKey }[] = [];
  for (const id of scopedConversationIds(state, scope)) {
    const c = state.conversations.get(id)!;
    if (visible(c, includeDeleted) && inScope(c, scope))
      rows.push({ c, key: { lastActivityAt: lastActivityAt(c), id } });
  }
  rows.sort((a, b) => compareConversationKeys(a.key, b.key));
  return sliceAfter(rows, page, (r) => r.key, compareConversationKeys).map((r) =>
    conversationView(r.c),
  );
}

/** Conversations in the scope by id in code-point order, after `page.after`. */
export function listConversationsById(
  state: MemoryState,
  { scope, includeDeleted, page }: RequestOf<"listConversations">,
): Conversation[] {
  const ids: readonly string[] =
    scope.userId !== undefined
      ? [...(state.conversationIdsByUser.get(scope.userId) ?? [])].sort(compareIds)
      : scope.tenantId !== undefined
        ? state.conversationIdsByTenant.get(scope.tenantId)
        : state.conversationIds;
  const rows = takeAfter(
    ids,
    page,
    (id) => id,
    compareIds,
    (id) => {
      const c = state.conversations.get(id)!;
      return visible(c, includeDeleted) && inScope(c, scope);
    },
  );
  return rows.map((id) => conversationView(state.conversations.get(id)!));
}

const messageKey = (e: MessageEntry): MessageKey => ({
  timestamp: e.message.timestamp,
  sequence: e.sequence,
});

/** A transcript page in `(timestamp, sequence)` order: the messages in the scope. */
export function listMessages(
  state: MemoryState,
  { conversationId, includeDeleted, page, scope }: RequestOf<"getMessagesByConversationId">,
): SequencedMessage[] {
  const entries = state.messagesByConversation.get(conversationId) ?? [];
  const rows =
    includeDeleted && unscoped(scope)
      ? sliceAfter(entries, page, messageKey, compareMessageKeys)
      : takeAfter(
          entries,
          page,
          messageKey,
          compareMessageKeys,
          (e) => visible(e.message, includeDeleted) && inScope(e.message, scope),
        );
  return rows.map((e) => ({ message: cloneMessage(e.message), sequence: e.sequence }));
}

/**
 * The newest `n` live, non-flagged messages in the scope, oldest first: walks back from the end
 * of the transcript.
 */
export function immediateContext(
  state: MemoryState,
  { conversationId, n, scope }: RequestOf<"getImmediateContext">,
): Message[] {
  const entries = state.messagesByConversation.get(conversationId) ?? [];
  const out: Message[] = [];
  for (let i = entries.length - 1; i >= 0 && out.length < n; i--) {
    const m = entries[i]!.message;
    if (!m.isFlagged && m.deletedAt === null && inScope(m, scope)) out.push(cloneMessage(m));
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
 * Matching traces in the scope in `(timestamp desc, id desc)` order after `page.after`: the
 * candidates are kept ascending, so this walks backwards from the first row below `until` and
 * the cursor.
 */
export function listTraces(
  state: MemoryState,
  { filter: own, page, scope }: RequestOf<"queryTurnTraces">,
): TurnTrace[] {
  const filter = { ...own, ...scope };
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
export function summarizeUsage(
  state: MemoryState,
  { query: own, scope }: RequestOf<"summarizeUsage">,
): UsageBucket[] {
  const query = { ...own, ...scope };
  const source = traceCandidates(state, query);
  const from = lowerBound(source, query.since, byTimestamp);
  const to = lowerBound(source, query.until, byTimestamp);
  return summarizeTraces(source.slice(from, Math.max(from, to)), query);
}

/** The messages a search must look at: of one conversation, or of the scope's conversations. */
function* messageCandidates(
  state: MemoryState,
  conversationId: string | undefined,
  scope: Scope,
): Iterable<Message> {
  if (conversationId !== undefined) {
    for (const e of state.messagesByConversation.get(conversationId) ?? []) yield e.message;
    return;
  }
  if (unscoped(scope)) {
    for (const e of state.messages.values()) yield e.message;
    return;
  }
  for (const id of scopedConversationIds(state, scope)) {
    for (const e of state.messagesByConversation.get(id) ?? []) yield e.message;
  }
}

/**
 * Brute-force cosine similarity over the candidate messages, filtered (scope included) before
 * ranking. Ranked on the rounded score, as core ranks the final list, so the cut at `limit`
 * agrees with it on near-ties.
 */
export function searchMessages(
  state: MemoryState,
  { query, scope }: RequestOf<"searchMessages">,
): SearchHit[] {
  const hits: { message: Message; score: number }[] = [];
  for (const message of messageCandidates(state, query.conversationId, scope)) {
    if (message.isFlagged || message.embedding === null) continue;
    if (!visible(message, query.includeDeleted) || !inScope(message, scope)) continue;
    const score = cosineSimilarity(message.embedding, query.embedding);
    if (score !== null) hits.push({ message, score: Math.round(score * 1e9) / 1e9 });
  }
  hits.sort((a, b) => b.score - a.score || compareIds(a.message.id, b.message.id));
  return hits
    .slice(0, query.limit)
    .map((h) => ({ message: cloneMessage(h.message), score: h.score }));
}

/** Pending messages in the scope by id after `page.after`, from the pending index. */
export function pendingEmbeddings(
  state: MemoryState,
  { filter, page, scope }: RequestOf<"listPendingEmbeddings">,
): Message[] {
  const roles = new Set<string>(filter.roles);
  const out: Message[] = [];
  state.pendingIndex().scan(page.after, page.take, (id) => {
    const m = state.messages.get(id)!.message;
    const ok = roles.has(m.role) && (filter.includeFlagged || !m.isFlagged) && inScope(m, scope);
    if (ok) out.push(cloneMessage(m));
    return ok;
  });
  return out;
}
