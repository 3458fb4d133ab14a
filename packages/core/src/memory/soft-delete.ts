import type { DeletedCounts, Scope } from "../models/queries.js";
import type { EmbeddingUpdate } from "../models/session.js";
import type { TurnTrace } from "../models/turn-trace.js";
import { inScope } from "../store/scope.js";
import type { MemoryState, MessageEntry } from "./memory-state.js";

/*
 * Applying the operations that change many records at once: soft delete, restore, purge,
 * erasure and embedding updates. Each is called after its check, inside one commit.
 */

function setDeleted(state: MemoryState, entry: MessageEntry, deletedAt: number | null): void {
  state.replaceMessage(entry, { ...entry.message, deletedAt });
}

/** Trace objects are the store's own, and `deletedAt` is no index key: set in place. */
function setTraceDeleted(trace: TurnTrace | undefined, deletedAt: number | null): void {
  if (trace) trace.deletedAt = deletedAt;
}

/**
 * Stamps the conversation and its live messages and traces. The stamp is after every earlier
 * stamp in the conversation, so a restore can tell what was deleted with it.
 */
export function softDeleteConversation(state: MemoryState, id: string, now: number): boolean {
  const c = state.conversations.get(id);
  if (!c || c.deletedAt !== null) return false;
  const entries = state.messagesByConversation.get(id) ?? [];
  let stamp = now;
  for (const e of entries) {
    const trace = state.traceOf(e.message.id);
    for (const at of [e.message.deletedAt, trace?.deletedAt ?? null])
      if (at !== null && at >= stamp) stamp = at + 1;
  }
  c.deletedAt = stamp;
  for (const e of entries) {
    const trace = state.traceOf(e.message.id);
    if (trace?.deletedAt === null) setTraceDeleted(trace, stamp);
    if (e.message.deletedAt === null) setDeleted(state, e, stamp);
  }
  return true;
}

/** Clears the stamp on the conversation and on what carries the same stamp. */
export function restoreConversation(state: MemoryState, id: string): boolean {
  const c = state.conversations.get(id);
  if (!c || c.deletedAt === null) return false;
  const stamp = c.deletedAt;
  for (const e of state.messagesByConversation.get(id) ?? []) {
    const trace = state.traceOf(e.message.id);
    if (trace?.deletedAt === stamp) setTraceDeleted(trace, null);
    if (e.message.deletedAt === stamp) setDeleted(state, e, null);
  }
  c.deletedAt = null;
  return true;
}

export function softDeleteMessage(state: MemoryState, id: string, now: number): boolean {
  const entry = state.messages.get(id);
  if (!entry || entry.message.deletedAt !== null) return false;
  const trace = state.traceOf(id);
  if (trace?.deletedAt === null) setTraceDeleted(trace, now);
  setDeleted(state, entry, now);
  return true;
}

export function restoreMessage(state: MemoryState, id: string): boolean {
  const entry = state.messages.get(id);
  if (!entry || entry.message.deletedAt === null) return false;
  const trace = state.traceOf(id);
  if (trace && trace.deletedAt === entry.message.deletedAt) setTraceDeleted(trace, null);
  setDeleted(state, entry, null);
  return true;
}

const before = (at: number | null, limit: number): boolean => at !== null && at < limit;

/** Hard-deletes what was soft-deleted before `limit`: conversations, then messages, then traces. */
export function purgeDeleted(state: MemoryState, limit: number, scope: Scope): DeletedCounts {
  const counts = { conversations: 0, messages: 0, turnTraces: 0 };
  for (const c of [...state.conversations.values()]) {
    if (!before(c.deletedAt, limit) || !inScope(c, scope)) continue;
    const removed = state.removeConversation(c.id)!;
    counts.conversations++;
    counts.messages += removed.messages;
    counts.turnTraces += removed.turnTraces;
  }
  for (const { message } of [...state.messages.values()]) {
    if (!before(message.deletedAt, limit) || !inScope(message, scope)) continue;
    if (state.traceOf(message.id)) counts.turnTraces++;
    state.removeMessage(message.id);
    counts.messages++;
  }
  for (const trace of [...state.traces.values()]) {
    if (!before(trace.deletedAt, limit) || !inScope(trace, scope)) continue;
    state.removeTrace(trace);
    counts.turnTraces++;
  }
  return counts;
}

/** Erasure: the user's conversations (of one tenant, when given), soft-deleted ones included. */
export function removeUserData(
  state: MemoryState,
  userId: string,
  tenantId: string | undefined,
): DeletedCounts {
  const counts = { conversations: 0, messages: 0, turnTraces: 0 };
  for (const id of [...(state.conversationIdsByUser.get(userId) ?? [])]) {
    if (tenantId !== undefined && state.conversations.get(id)?.tenantId !== tenantId) continue;
    const removed = state.removeConversation(id);
    if (!removed) continue;
    counts.conversations++;
    counts.messages += removed.messages;
    counts.turnTraces += removed.turnTraces;
  }
  return counts;
}

/** Sets each embedding whose message is live and still has the text it was computed from. */
export function setEmbeddings(state: MemoryState, updates: readonly EmbeddingUpdate[]): number {
  let set = 0;
  for (const u of updates) {
    const entry = state.messages.get(u.id);
    const m = entry?.message;
    if (!entry || !m || m.deletedAt !== null || m.originalContent !== u.originalContent) continue;
    state.replaceMessage(entry, { ...m, embedding: u.embedding });
    set++;
  }
  return set;
}
