import type { DeletedCounts, Scope } from "../../models/queries.js";
import type { TurnTrace } from "../../models/turn-trace.js";
import { inScope } from "../../store/scope.js";
import { one, operationKind, unchanged, type WriteSpecs } from "../journal.js";
import type { MemoryState, MessageEntry } from "../memory-state.js";
import { checkRestoreMessage } from "../operation-rules.js";

const NO = unchanged(false);
const YES = () => true;

/** Soft delete, restore and purge, as operations (each carries its time). */
export const SOFT_DELETE_OPERATIONS = {
  softDeleteConversation: operationKind(
    { required: { id: "id", deletedAt: "time" } },
    (state, op) => stampConversation(state, op.id, op.deletedAt),
  ),
  restoreConversation: operationKind({ required: { id: "id" } }, (state, op) =>
    unstampConversation(state, op.id),
  ),
  softDeleteMessage: operationKind({ required: { id: "id", deletedAt: "time" } }, (state, op) =>
    stampMessage(state, op.id, op.deletedAt),
  ),
  restoreMessage: operationKind({ required: { id: "id" } }, (state, op) =>
    unstampMessage(state, op.id),
  ),
  purgeDeleted: operationKind({ required: { before: "time", scope: "scope" } }, (state, op) =>
    purge(state, op.before, op.scope),
  ),
};

/** A message's keys: also its trace, and its conversation (whose soft delete a restore reads). */
export function messageKeys(state: MemoryState, id: string): string[] {
  const m = state.messages.get(id)?.message;
  const trace = state.traceIdByMessage.get(id);
  const keys = [`m:${id}`];
  if (m) keys.push(`c:${m.conversationId}`);
  if (trace !== undefined) keys.push(`t:${trace}`);
  return keys;
}

/** The driver's soft delete writes. */
export const SOFT_DELETE_WRITES: WriteSpecs<
  | "softDeleteConversation"
  | "restoreConversation"
  | "softDeleteMessage"
  | "restoreMessage"
  | "purgeDeleted"
> = {
  softDeleteConversation: {
    keys: () => null,
    resolve(state, { id, deletedAt, scope }) {
      const c = state.conversations.get(id);
      if (!c || c.deletedAt !== null || !inScope(c, scope)) return NO;
      return one({ op: "softDeleteConversation", id, deletedAt }, YES);
    },
  },
  restoreConversation: {
    keys: () => null,
    resolve(state, { id, scope }) {
      const c = state.conversations.get(id);
      if (!c || c.deletedAt === null || !inScope(c, scope)) return NO;
      return one({ op: "restoreConversation", id }, YES);
    },
  },
  softDeleteMessage: {
    keys: (state, { id }) => messageKeys(state, id),
    resolve(state, { id, deletedAt, scope }) {
      const m = state.messages.get(id)?.message;
      if (!m || m.deletedAt !== null || !inScope(m, scope)) return NO;
      return one({ op: "softDeleteMessage", id, deletedAt }, YES);
    },
  },
  restoreMessage: {
    keys: (state, { id }) => messageKeys(state, id),
    resolve(state, { id, scope }) {
      const m = state.messages.get(id)?.message;
      if (!m || !inScope(m, scope) || !checkRestoreMessage(state, id)) return NO;
      return one({ op: "restoreMessage", id }, YES);
    },
  },
  purgeDeleted: {
    keys: () => null,
    resolve: (_, { before, scope }) =>
      one({ op: "purgeDeleted", before, scope: { ...scope } }, (counts: DeletedCounts) => counts),
  },
};

/*
 * Applying them: each runs after its check, inside one commit.
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
function stampConversation(state: MemoryState, id: string, now: number): boolean {
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
function unstampConversation(state: MemoryState, id: string): boolean {
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

function stampMessage(state: MemoryState, id: string, now: number): boolean {
  const entry = state.messages.get(id);
  if (!entry || entry.message.deletedAt !== null) return false;
  const trace = state.traceOf(id);
  if (trace?.deletedAt === null) setTraceDeleted(trace, now);
  setDeleted(state, entry, now);
  return true;
}

function unstampMessage(state: MemoryState, id: string): boolean {
  const entry = state.messages.get(id);
  if (!entry || entry.message.deletedAt === null) return false;
  const trace = state.traceOf(id);
  if (trace && trace.deletedAt === entry.message.deletedAt) setTraceDeleted(trace, null);
  setDeleted(state, entry, null);
  return true;
}

const before = (at: number | null, limit: number): boolean => at !== null && at < limit;

/** Hard-deletes what was soft-deleted before `limit`: conversations, then messages, then traces. */
function purge(state: MemoryState, limit: number, scope: Scope): DeletedCounts {
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
