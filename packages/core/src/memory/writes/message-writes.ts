import type { ConversationRecord } from "../../models/conversation.js";
import type { Message } from "../../models/message.js";
import type { EmbeddingUpdate } from "../../models/session.js";
import { checkSessionTimestamps } from "../../session/session-end-of-time.js";
import { inScope } from "../../store/scope.js";
import { cloneConversation, cloneMessage } from "../clone.js";
import { one, operationKind, type Resolved, unchanged, type WriteSpecs } from "../journal.js";
import {
  lastActivityAt,
  type MemoryState,
  type StoredConversation,
  storedConversation,
} from "../memory-state.js";
import { checkMessages, checkSessionConversation, storedMessage } from "../operation-rules.js";
import { messageKeys } from "./soft-delete-writes.js";

type SessionRequest = {
  conversation: ConversationRecord;
  messages: readonly Message[];
  now: number;
};

/** Message writes, as operations: a batch (with the conversation a session creates), a flag, a delete, embeddings. */
export const MESSAGE_OPERATIONS = {
  putMessages: operationKind(
    { required: { messages: "messages" }, optional: { ensureConversation: "conversation" } },
    (state, op) => {
      ensureConversation(state, op.ensureConversation);
      return op.messages.map((m) => {
        const stored = storedMessage(state, m);
        state.putMessage(stored);
        return stored;
      });
    },
    (state, op) => checkMessages(state, op.messages, op.ensureConversation, "replay"),
  ),
  flagMessage: operationKind({ required: { id: "id", flagged: "flag" } }, (state, op) => {
    const entry = state.messages.get(op.id);
    if (!entry || entry.message.deletedAt !== null) return null;
    if (entry.message.isFlagged !== op.flagged)
      state.replaceMessage(entry, { ...entry.message, isFlagged: op.flagged });
    return entry.message;
  }),
  deleteMessage: operationKind({ required: { id: "id" } }, (state, op) =>
    state.removeMessage(op.id),
  ),
  setEmbeddings: operationKind({ required: { updates: "updates" } }, (state, op) =>
    applyEmbeddings(state, op.updates),
  ),
};

/** The driver's message writes. */
export const MESSAGE_WRITES: WriteSpecs<
  "storeMessages" | "storeSessionMessages" | "flagMessage" | "deleteMessage" | "setEmbeddings"
> = {
  storeMessages: {
    keys: (_, { messages }) => messages.flatMap((m) => [`c:${m.conversationId}`, `m:${m.id}`]),
    resolve(state, { messages }) {
      checkMessages(state, messages, undefined, "live");
      return putMessages(messages, messages.map(cloneMessage));
    },
  },
  storeSessionMessages: {
    keys: (_, { conversation, messages }) => [
      `c:${conversation.id}`,
      ...messages.map((m) => `m:${m.id}`),
    ],
    resolve: resolveSession,
  },
  flagMessage: {
    keys: (_, { id }) => [`m:${id}`],
    resolve(state, { id, flagged, scope }) {
      const m = state.messages.get(id)?.message;
      if (!m || m.deletedAt !== null || !inScope(m, scope)) return unchanged(null);
      if (m.isFlagged === flagged) return unchanged(cloneMessage(m));
      return one({ op: "flagMessage", id, flagged }, (stored: Message | null) =>
        stored ? cloneMessage(stored) : null,
      );
    },
  },
  deleteMessage: {
    keys: (state, { id }) => messageKeys(state, id),
    resolve(state, { id, scope }) {
      const m = state.messages.get(id)?.message;
      return m && inScope(m, scope)
        ? one({ op: "deleteMessage", id }, () => true)
        : unchanged(false);
    },
  },
  setEmbeddings: {
    keys: (_, { updates }) => updates.map((u) => `m:${u.id}`),
    resolve(state, { updates, scope }) {
      const applicable = updates.filter((u) => {
        const m = state.messages.get(u.id)?.message;
        return (
          m !== undefined &&
          m.deletedAt === null &&
          m.originalContent === u.originalContent &&
          inScope(m, scope)
        );
      });
      if (applicable.length === 0) return unchanged(0);
      return one(
        { op: "setEmbeddings", updates: applicable.map(cloneUpdate) },
        (set: number) => set,
      );
    },
  },
};

/** Creates the conversation an operation carries when it is missing. */
export function ensureConversation(state: MemoryState, c: ConversationRecord | undefined): void {
  if (c && !state.conversations.has(c.id)) state.setConversation(storedConversation(c, null));
}

/** `op`, carrying a copy of the conversation it creates, if it creates one. */
export function ensuring<O extends object>(op: O, created: ConversationRecord | undefined) {
  return created ? { ...op, ensureConversation: cloneConversation(created) } : op;
}

/**
 * The messages of a write, as stored: the request's own record where the store kept its copy
 * unchanged, else a copy of what it stored (`tenantId` filled, a stale embedding cleared, a
 * session's timestamp chosen).
 */
export function putMessages(
  messages: readonly Message[],
  copies: Message[],
  ensure?: ConversationRecord,
): Resolved<Message[]> {
  const op = ensuring({ op: "putMessages", messages: copies } as const, ensure);
  return one(op, (stored: Message[]) =>
    stored.map((m, i) =>
      m === copies[i] && m.timestamp === messages[i]!.timestamp ? messages[i]! : cloneMessage(m),
    ),
  );
}

/**
 * `storeSessionMessages`: creates the conversation if it is missing, and chooses the timestamps
 * against the state (so the operation journaled holds them, and replays alike): a message already
 * stored in the conversation keeps its own, every other one moves from `now + i` to
 * `max(now, lastActivityAt + 1) + i`.
 */
function resolveSession(state: MemoryState, request: SessionRequest): Resolved<Message[]> {
  const { conversation, messages } = request;
  const existing = checkSessionConversation(state, conversation);
  const copies = sessionCopies(state, existing, request);
  checkMessages(state, copies, existing ? undefined : conversation, "live");
  return putMessages(messages, copies, existing ? undefined : conversation);
}

/**
 * The messages of a session write as they will be stored: a message already stored in the
 * conversation keeps its timestamp, every other one moves from `now + i` to
 * `max(now, lastActivityAt + 1) + i`, which must not pass the end of time
 * (`checkSessionTimestamps`).
 */
export function sessionCopies(
  state: MemoryState,
  existing: StoredConversation | undefined,
  request: { conversation: { id: string }; messages: readonly Message[]; now: number },
): Message[] {
  const { messages, now } = request;
  const activity = existing ? lastActivityAt(existing) : now;
  const shift = existing ? Math.max(now, activity + 1) - now : 0;
  let newest = Number.NEGATIVE_INFINITY;
  const copies = messages.map((m) => {
    const copy = cloneMessage(m);
    const stored = state.messages.get(m.id)?.message;
    if (stored && stored.conversationId === m.conversationId) copy.timestamp = stored.timestamp;
    else newest = copy.timestamp = m.timestamp + shift;
    return copy;
  });
  checkSessionTimestamps(request.conversation.id, newest, activity);
  return copies;
}

/** Sets each embedding whose message is live and still has the text it was computed from. */
function applyEmbeddings(state: MemoryState, updates: readonly EmbeddingUpdate[]): number {
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

function cloneUpdate(u: EmbeddingUpdate): EmbeddingUpdate {
  return { id: u.id, embedding: u.embedding.slice(), originalContent: u.originalContent };
}
