import type { Conversation, ConversationRecord, Message, TurnTrace } from "@message-store/core";
import { compareIds } from "@message-store/core/adapter";
import { cloneConversation } from "./clone.js";
import { insertSorted, removeAllSorted, removeSorted } from "./sorted-array.js";

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
 */
export class MemoryState {
  readonly conversations = new Map<string, StoredConversation>();
  readonly messages = new Map<string, MessageEntry>();
  readonly traces = new Map<string, TurnTrace>();
  readonly traceIdByMessage = new Map<string, string>();
  /** Per conversation, sorted by {@link compareEntries}. */
  readonly messagesByConversation = new Map<string, MessageEntry[]>();
  readonly conversationIdsByUser = new Map<string, Set<string>>();
  /** Every conversation id in code-point order (`compareIds`), for `listConversations`. */
  readonly conversationIds: string[] = [];
  /** Every trace, sorted by {@link compareTracesAscending}. */
  readonly tracesByTime: TurnTrace[] = [];
  /** Per agent, sorted by {@link compareTracesAscending}. */
  readonly tracesByAgent = new Map<string, TurnTrace[]>();
  nextSequence = 0;

  setConversation(c: StoredConversation, sorted = true): void {
    const old = this.conversations.get(c.id);
    if (old && old.userId !== c.userId) this.#unindexUser(old);
    if (!old && sorted) insertSorted(this.conversationIds, c.id, compareIds);
    else if (!old) this.conversationIds.push(c.id);
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
    }
    const c = this.conversations.get(message.conversationId);
    if (c && (c.lastMessageAt === null || message.timestamp > c.lastMessageAt)) {
      c.lastMessageAt = message.timestamp;
    }
  }

  /** Adds a new message with a given sequence; `sorted: false` defers sorting to {@link sortIndexes}. */
  addMessage(message: Message, sequence: number, sorted: boolean): void {
    const entry = { message, sequence };
    this.messages.set(message.id, entry);
    this.nextSequence = Math.max(this.nextSequence, sequence + 1);
    const list = this.#transcript(message.conversationId);
    if (sorted) insertSorted(list, entry, compareEntries);
    else list.push(entry);
  }

  /** Upserts a trace, moving it in the indexes if its time, agent or message changed. */
  putTrace(trace: TurnTrace, sorted = true): void {
    const old = this.traces.get(trace.id);
    if (old) this.#unindexTrace(old);
    this.traces.set(trace.id, trace);
    this.traceIdByMessage.set(trace.messageId, trace.id);
    let byAgent = this.tracesByAgent.get(trace.agentId);
    if (!byAgent) {
      byAgent = [];
      this.tracesByAgent.set(trace.agentId, byAgent);
    }
    if (sorted) {
      insertSorted(this.tracesByTime, trace, compareTracesAscending);
      insertSorted(byAgent, trace, compareTracesAscending);
    } else {
      this.tracesByTime.push(trace);
      byAgent.push(trace);
    }
  }

  /** Sorts the indexes after a bulk load that added rows unsorted. */
  sortIndexes(): void {
    this.conversationIds.sort(compareIds);
    for (const list of this.messagesByConversation.values()) list.sort(compareEntries);
    this.tracesByTime.sort(compareTracesAscending);
    for (const list of this.tracesByAgent.values()) list.sort(compareTracesAscending);
  }

  /** Cascade delete of a conversation with its messages and their traces; `null` when absent. */
  removeConversation(id: string): RemovedCounts | null {
    const c = this.conversations.get(id);
    if (!c) return null;
    const entries = this.messagesByConversation.get(id) ?? [];
    const removedTraces: TurnTrace[] = [];
    for (const { message } of entries) {
      this.messages.delete(message.id);
      const traceId = this.traceIdByMessage.get(message.id);
      const trace = traceId === undefined ? undefined : this.traces.get(traceId);
      if (trace) {
        this.traces.delete(trace.id);
        this.traceIdByMessage.delete(message.id);
        removedTraces.push(trace);
      }
    }
    removeAllSorted(this.tracesByTime, removedTraces, compareTracesAscending);
    const byAgent = new Map<string, TurnTrace[]>();
    for (const t of removedTraces) {
      const group = byAgent.get(t.agentId);
      if (group) group.push(t);
      else byAgent.set(t.agentId, [t]);
    }
    for (const [agentId, traces] of byAgent) this.#removeFromAgent(agentId, traces);
    this.messagesByConversation.delete(id);
    this.conversations.delete(id);
    removeSorted(this.conversationIds, id, compareIds);
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
    this.#removeFromAgent(t.agentId, [t]);
  }

  #removeFromAgent(agentId: string, traces: TurnTrace[]): void {
    const list = this.tracesByAgent.get(agentId);
    if (!list) return;
    removeAllSorted(list, traces, compareTracesAscending);
    if (list.length === 0) this.tracesByAgent.delete(agentId);
  }
}
