import type {
  Conversation,
  Message,
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
} from "./memory-state.js";
import { lowerBound } from "./sorted-array.js";

/*
 * Reads, served from memory. Every record handed out is a copy, so a caller mutating it cannot
 * change what the store holds.
 */

/** A user's conversations in `(lastActivityAt desc, id asc)` order, after `page.after`. */
export function listConversations(
  state: MemoryState,
  userId: string,
  page: PageRequest<ConversationKey>,
): Conversation[] {
  const ids = state.conversationIdsByUser.get(userId);
  if (!ids) return [];
  const rows = [...ids].map((id) => {
    const c = state.conversations.get(id)!;
    return { c, key: { lastActivityAt: lastActivityAt(c), id } };
  });
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
): Conversation[] {
  let ids: readonly string[] = state.conversationIds;
  if (userId !== null) ids = [...(state.conversationIdsByUser.get(userId) ?? [])].sort(compareIds);
  return sliceAfter(ids, page, (id) => id, compareIds).map((id) =>
    conversationView(state.conversations.get(id)!),
  );
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
): SequencedMessage[] {
  const entries = state.messagesByConversation.get(conversationId) ?? [];
  return sliceAfter(entries, page, messageKey, compareMessageKeys).map((e) => ({
    message: cloneMessage(e.message),
    sequence: e.sequence,
  }));
}

/** The newest `n` non-flagged messages, oldest first: walks back from the end of the transcript. */
export function immediateContext(state: MemoryState, conversationId: string, n: number): Message[] {
  const entries = state.messagesByConversation.get(conversationId) ?? [];
  const out: Message[] = [];
  for (let i = entries.length - 1; i >= 0 && out.length < n; i--) {
    const m = entries[i]!.message;
    if (!m.isFlagged) out.push(cloneMessage(m));
  }
  return out.reverse();
}

/** The smallest set of traces, in ascending order, that can hold every match of `filter`. */
function traceCandidates(state: MemoryState, filter: TurnTraceFilter): readonly TurnTrace[] {
  if (filter.agentId !== undefined) return state.tracesByAgent.get(filter.agentId) ?? [];
  if (filter.conversationId !== undefined) {
    const found: TurnTrace[] = [];
    for (const { message } of state.messagesByConversation.get(filter.conversationId) ?? []) {
      const id = state.traceIdByMessage.get(message.id);
      if (id !== undefined) found.push(state.traces.get(id)!);
    }
    return found.sort(compareTracesAscending);
  }
  return state.tracesByTime;
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
  const source =
    query.agentId === undefined
      ? state.tracesByTime
      : (state.tracesByAgent.get(query.agentId) ?? []);
  const from = lowerBound(source, query.since, byTimestamp);
  const to = lowerBound(source, query.until, byTimestamp);
  return summarizeTraces(source.slice(from, Math.max(from, to)), query);
}

const round = (score: number) => Math.round(score * 1e9) / 1e9;

/**
 * Brute-force cosine similarity over the candidate messages. Ranked on the rounded score, as core
 * ranks the final list, so the cut at `limit` agrees with it on near-ties.
 */
export function searchMessages(state: MemoryState, query: SearchQuery): SearchHit[] {
  const candidates: Iterable<MessageEntry> =
    query.conversationId === undefined
      ? state.messages.values()
      : (state.messagesByConversation.get(query.conversationId) ?? []);
  const hits: { message: Message; score: number }[] = [];
  for (const { message } of candidates) {
    if (message.isFlagged || message.embedding === null) continue;
    if (query.userId !== undefined && message.userId !== query.userId) continue;
    const score = cosineSimilarity(message.embedding, query.embedding);
    if (score !== null) hits.push({ message, score: round(score) });
  }
  hits.sort((a, b) => b.score - a.score || compareIds(a.message.id, b.message.id));
  return hits
    .slice(0, query.limit)
    .map((h) => ({ message: cloneMessage(h.message), score: h.score }));
}
