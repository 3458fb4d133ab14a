import type { Conversation, ConversationRecord } from "../models/conversation.js";
import type { Message } from "../models/message.js";
import type { TurnTrace } from "../models/turn-trace.js";
import { compareIds } from "../paging/ordering.js";
import type { ThreadCheckpoints } from "./checkpoint-state.js";
import { cloneConversation } from "./clone.js";
import { PendingIndex } from "./pending-index.js";
import { insertSorted, removeAllSorted, removeSorted } from "./sorted-array.js";
import { SortedGroups } from "./sorted-groups.js";

/**
 * A conversation as the store keeps it: the record plus `lastMessageAt`, the greatest timestamp
 * of any message ever stored in it. It only moves forward, and a conversation upsert keeps it.
 */
export interface StoredConversation extends ConversationRecord {
  lastMessageAt: number | null;
}

/** A message with its receipt order (`sequence`), which breaks timestamp ties. */
export interface MessageEntry {
  message: Message;
  sequence: number;
}

/** What a cascade delete removed. */
export interface RemovedCounts {
  messages: number;
  turnTraces: number;
}

/** Transcript order: `(timestamp, sequence)` ascending. */
export function compareEntries(a: MessageEntry, b: MessageEntry): number {
  return a.message.timestamp - b.message.timestamp || a.sequence - b.sequence;
}

/** `(timestamp, id)` ascending: the reverse of the trace list order, so appends stay cheap. */
export function compareTracesAscending(a: TurnTrace, b: TurnTrace): number {
  return a.timestamp - b.timestamp || compareIds(a.id, b.id);
}

/** `max(updatedAt, lastMessageAt ?? updatedAt)`: the key conversations are listed by. */
export function lastActivityAt(c: StoredConversation): number {
  return c.lastMessageAt === null ? c.updatedAt : Math.max(c.updatedAt, c.lastMessageAt);
}

/**
 * A stored conversation: a copy of the record in its model's key order (the order files show),
 * with `lastMessageAt` last.
 */
export function storedConversation(
  c: ConversationRecord,
  lastMessageAt: number | null,
): StoredConversation {
  const stored = cloneConversation(c) as StoredConversation;
  stored.lastMessageAt = lastMessageAt;
  return stored;
}

/** The conversation as the API returns it: a copy, with `lastActivityAt`. */
export function conversationView(c: StoredConversation): Conversation {
  const view = cloneConversation(c) as Conversation;
  view.lastActivityAt = lastActivityAt(c);
  return view;
}

function addToSet(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

/**
 * The whole dataset with its indexes. Mutations here are synchronous and never fail, so a
 * reader can never observe half of an operation. Map iteration order is meaningful: messages
 * iterate in `sequence` order (a new message always gets the next sequence and goes last; an
 * upsert keeps its place), which is the order the main file stores them in.
 *
 * Records held here are the store's own copies (callers get clones), so a change may replace a
 * message object or set a trace's `deletedAt` in place; index keys (ids, timestamps, owners)
 * never change in place.
 */
export class MemoryState {
  readonly conversations = new Map<string, StoredConversation>();
  readonly messages = new Map<string, MessageEntry>();
  readonly traces = new Map<string, TurnTrace>();
  readonly traceIdByMessage = new Map<string, string>();
  /** Per conversation, sorted by {@link compareEntries}. */
  readonly messagesByConversation = new Map<string, MessageEntry[]>();
  readonly conversationIdsByUser = new Map<string, Set<string>>();
  /** Per tenant, the conversation ids in code-point order. */
  readonly conversationIdsByTenant = new SortedGroups<string>(compareIds);
  /** Every conversation id in code-point order (`compareIds`), for `listConversations`. */
  readonly conversationIds: string[] = [];
  /** Every trace, sorted by {@link compareTracesAscending}. */
  readonly tracesByTime: TurnTrace[] = [];
  /** Per agent, user and tenant, sorted by {@link compareTracesAscending}. */
  readonly tracesByAgent = new SortedGroups<TurnTrace>(compareTracesAscending);
  readonly tracesByUser = new SortedGroups<TurnTrace>(compareTracesAscending);
  readonly tracesByTenant = new SortedGroups<TurnTrace>(compareTracesAscending);
  /** Per conversation (thread), its checkpoints by namespace (see `checkpoint-state.ts`). */
  readonly checkpoints = new Map<string, ThreadCheckpoints>();
  nextSequence = 0;
  #pending: PendingIndex | null = null;

  setConversation(c: StoredConversation, sorted = true): void {
    const old = this.conversations.get(c.id);
    // Owners never change through the API; a journal of an older version may still change the user.
    if (old && old.userId !== c.userId) this.#unindexUser(old);
    if (old && old.tenantId !== null && old.tenantId !== c.tenantId)
      this.conversationIdsByTenant.remove(old.tenantId, [old.id]);
    if (!old && sorted) insertSorted(this.conversationIds, c.id, compareIds);
    else if (!old) this.conversationIds.push(c.id);
    if (c.tenantId !== null && old?.tenantId !== c.tenantId)
      this.conversationIdsByTenant.add(c.tenantId, c.id, sorted);
    this.conversations.set(c.id, c);
    addToSet(this.conversationIdsByUser, c.userId, c.id);
  }

  /** Upserts a message: a new one gets the next sequence, an existing one keeps its own. */
  putMessage(message: Message): void {
    const entry = this.messages.get(message.id);
    if (!entry) {
      this.addMessage(message, this.nextSequence, true);
    } else {
      const list = this.#transcript(message.conversationId);
      if (entry.message.timestamp === message.timestamp) {
        entry.message = message;
      } else {
        removeSorted(list, entry, compareEntries);
        entry.message = message;
        insertSorted(list, entry, compareEntries);
      }
      this.#pending?.update(message);
    }
    const c = this.conversations.get(message.conversationId);
    if (c && (c.lastMessageAt === null || message.timestamp > c.lastMessageAt)) {
      c.lastMessageAt = message.timestamp;
    }
  }

  /** Replaces a stored message by a changed copy with the same id, timestamp and conversation. */
  replaceMessage(entry: MessageEntry, message: Message): void {
    entry.message = message;
    this.#pending?.update(message);
  }

  /** Adds a new message with a given sequence; `sorted: false` defers sorting to {@link sortIndexes}. */
  addMessage(message: Message, sequence: number, sorted: boolean): void {
    const entry = { message, sequence };
    this.messages.set(message.id, entry);
    this.nextSequence = Math.max(this.nextSequence, sequence + 1);
    const list = this.#transcript(message.conversationId);
    if (sorted) insertSorted(list, entry, compareEntries);
    else list.push(entry);
    this.#pending?.update(message);
  }

  /** Upserts a trace, moving it in the indexes if its time, agent or message changed. */
  putTrace(trace: TurnTrace, sorted = true): void {
    const old = this.traces.get(trace.id);
    if (old) this.#unindexTrace(old);
    this.traces.set(trace.id, trace);
    this.traceIdByMessage.set(trace.messageId, trace.id);
    if (sorted) insertSorted(this.tracesByTime, trace, compareTracesAscending);
    else this.tracesByTime.push(trace);
    this.tracesByAgent.add(trace.agentId, trace, sorted);
    if (trace.userId !== null) this.tracesByUser.add(trace.userId, trace, sorted);
    if (trace.tenantId !== null) this.tracesByTenant.add(trace.tenantId, trace, sorted);
  }

  /** The trace of a message, if any. */
  traceOf(messageId: string): TurnTrace | undefined {
    const id = this.traceIdByMessage.get(messageId);
    return id === undefined ? undefined : this.traces.get(id);
  }

  /** The checkpoints of a conversation, made empty when it has none yet. */
  threadCheckpoints(conversationId: string): ThreadCheckpoints {
    let thread = this.checkpoints.get(conversationId);
    if (!thread) {
      thread = new Map();
      this.checkpoints.set(conversationId, thread);
    }
    return thread;
  }

  /** Sorts the indexes after a bulk load that added rows unsorted. */
  sortIndexes(): void {
    this.conversationIds.sort(compareIds);
    this.conversationIdsByTenant.sortAll();
    for (const list of this.messagesByConversation.values()) list.sort(compareEntries);
    this.tracesByTime.sort(compareTracesAscending);
    this.tracesByAgent.sortAll();
    this.tracesByUser.sortAll();
    this.tracesByTenant.sortAll();
  }

  /** The pending-embedding index, built on first use. */
  pendingIndex(): PendingIndex {
    this.#pending ??= new PendingIndex([...this.messages.values()].map((e) => e.message));
    return this.#pending;
  }

  /** Deletes one message and its trace; `false` when absent. Activity is unchanged. */
  removeMessage(id: string): boolean {
    const entry = this.messages.get(id);
    if (!entry) return false;
    const trace = this.traceOf(id);
    if (trace) this.removeTrace(trace);
    const list = this.messagesByConversation.get(entry.message.conversationId);
    if (list) removeSorted(list, entry, compareEntries);
    this.messages.delete(id);
    this.#pending?.remove(id);
    return true;
  }

  /** Deletes one trace. */
  removeTrace(trace: TurnTrace): void {
    this.traces.delete(trace.id);
    this.#unindexTrace(trace);
  }

  /** Cascade delete of a conversation with its messages and their traces; `null` when absent. */
  removeConversation(id: string): RemovedCounts | null {
    const c = this.conversations.get(id);
    if (!c) return null;
    const entries = this.messagesByConversation.get(id) ?? [];
    const removedTraces: TurnTrace[] = [];
    for (const { message } of entries) {
      this.messages.delete(message.id);
      this.#pending?.remove(message.id);
      const trace = this.traceOf(message.id);
      if (trace) {
        this.traces.delete(trace.id);
        this.traceIdByMessage.delete(message.id);
        removedTraces.push(trace);
      }
    }
    removeAllSorted(this.tracesByTime, removedTraces, compareTracesAscending);
    removeGrouped(this.tracesByAgent, removedTraces, (t) => t.agentId);
    removeGrouped(this.tracesByUser, removedTraces, (t) => t.userId);
    removeGrouped(this.tracesByTenant, removedTraces, (t) => t.tenantId);
    this.messagesByConversation.delete(id);
    this.checkpoints.delete(id);
    this.conversations.delete(id);
    removeSorted(this.conversationIds, id, compareIds);
    if (c.tenantId !== null) this.conversationIdsByTenant.remove(c.tenantId, [id]);
    this.#unindexUser(c);
    return { messages: entries.length, turnTraces: removedTraces.length };
  }

  #transcript(conversationId: string): MessageEntry[] {
    let list = this.messagesByConversation.get(conversationId);
    if (!list) {
      list = [];
      this.messagesByConversation.set(conversationId, list);
    }
    return list;
  }

  #unindexUser(c: StoredConversation): void {
    const ids = this.conversationIdsByUser.get(c.userId);
    ids?.delete(c.id);
    if (ids?.size === 0) this.conversationIdsByUser.delete(c.userId);
  }

  #unindexTrace(t: TurnTrace): void {
    if (this.traceIdByMessage.get(t.messageId) === t.id) this.traceIdByMessage.delete(t.messageId);
    removeSorted(this.tracesByTime, t, compareTracesAscending);
    this.tracesByAgent.remove(t.agentId, [t]);
    if (t.userId !== null) this.tracesByUser.remove(t.userId, [t]);
    if (t.tenantId !== null) this.tracesByTenant.remove(t.tenantId, [t]);
  }
}

/** Removes traces from the groups `keyOf` puts them in, one batch per group. */
function removeGrouped(
  groups: SortedGroups<TurnTrace>,
  traces: readonly TurnTrace[],
  keyOf: (t: TurnTrace) => string | null,
): void {
  const byKey = new Map<string, TurnTrace[]>();
  for (const t of traces) {
    const key = keyOf(t);
    if (key === null) continue;
    const group = byKey.get(key);
    if (group) group.push(t);
    else byKey.set(key, [t]);
  }
  for (const [key, rows] of byKey) groups.remove(key, rows);
}
