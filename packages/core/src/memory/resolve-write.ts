import type { CheckpointRecord, SerializedValue } from "../models/checkpoint.js";
import type { Message } from "../models/message.js";
import type { DeletedCounts } from "../models/queries.js";
import type { EmbeddingUpdate } from "../models/session.js";
import type { TurnTrace } from "../models/turn-trace.js";
import { checkSessionTimestamps } from "../session/session-end-of-time.js";
import type { RequestOf } from "../store/operation-table.js";
import { inScope } from "../store/scope.js";
import { cloneConversation, cloneJson, cloneMessage, cloneTrace } from "./clone.js";
import {
  conversationView,
  lastActivityAt,
  type MemoryState,
  type StoredConversation,
} from "./memory-state.js";
import {
  checkConversation,
  checkMessages,
  checkRestoreMessage,
  checkSessionConversation,
  checkTrace,
  type WriteContext,
} from "./operation-rules.js";
import type { Operation, OperationResult } from "./operations.js";
import type { Resolved, Write, WriteResult } from "./write.js";

const NONE: DeletedCounts = Object.freeze({ conversations: 0, messages: 0, turnTraces: 0 });

/** A write that changes nothing and answers `value`. */
const unchanged = <R>(value: R): Resolved<R> => ({ ops: [], answer: () => value });
const NO = unchanged(false);

/** A write carried out by one operation, answered from what applying it returned. */
const one = <O extends Operation, R>(
  op: O,
  answer: (result: OperationResult<O>) => R,
): Resolved<R> => ({
  ops: [op],
  answer: (results) => answer(results[0] as OperationResult<O>),
});

/**
 * Checks a write against the state and the contract's rules, with its scope, and turns it into
 * the operations that carry it out (see {@link Resolved}). Throws `IntegrityError` (an
 * `ownerRefusal` for a record that is missing or another owner's). Records are copied here: the
 * operations hold the store's own copies, and every answer is a copy again (or the request's own
 * record where the store kept it unchanged).
 */
export function resolveWrite<W extends Write>(
  state: MemoryState,
  write: W,
): Resolved<WriteResult<W>> {
  return resolve(state, write) as Resolved<WriteResult<W>>;
}

function resolve(state: MemoryState, write: Write): Resolved<unknown> {
  switch (write.method) {
    case "storeConversation": {
      const { conversation } = write.request;
      checkConversation(state, conversation);
      const op = { op: "putConversation", conversation: cloneConversation(conversation) } as const;
      return one(op, conversationView);
    }
    case "deleteConversation": {
      const { id, scope } = write.request;
      const c = state.conversations.get(id);
      return c && inScope(c, scope) ? one({ op: "deleteConversation", id }, () => true) : NO;
    }
    case "softDeleteConversation": {
      const { id, deletedAt, scope } = write.request;
      const c = state.conversations.get(id);
      if (!c || c.deletedAt !== null || !inScope(c, scope)) return NO;
      return one({ op: "softDeleteConversation", id, deletedAt }, () => true);
    }
    case "restoreConversation": {
      const { id, scope } = write.request;
      const c = state.conversations.get(id);
      if (!c || c.deletedAt === null || !inScope(c, scope)) return NO;
      return one({ op: "restoreConversation", id }, () => true);
    }
    case "storeMessages": {
      const { messages } = write.request;
      checkMessages(state, messages, undefined, "live");
      return putMessages(messages, messages.map(cloneMessage));
    }
    case "storeSessionMessages":
      return resolveSession(state, write.request);
    case "flagMessage": {
      const { id, flagged, scope } = write.request;
      const m = state.messages.get(id)?.message;
      if (!m || m.deletedAt !== null || !inScope(m, scope)) return unchanged(null);
      if (m.isFlagged === flagged) return unchanged(cloneMessage(m));
      return one(
        { op: "flagMessage", id, flagged } as const,
        (stored) => stored && cloneMessage(stored),
      );
    }
    case "softDeleteMessage": {
      const { id, deletedAt, scope } = write.request;
      const m = state.messages.get(id)?.message;
      if (!m || m.deletedAt !== null || !inScope(m, scope)) return NO;
      return one({ op: "softDeleteMessage", id, deletedAt }, () => true);
    }
    case "restoreMessage": {
      const { id, scope } = write.request;
      const m = state.messages.get(id)?.message;
      if (!m || !inScope(m, scope) || !checkRestoreMessage(state, id)) return NO;
      return one({ op: "restoreMessage", id }, () => true);
    }
    case "deleteMessage": {
      const { id, scope } = write.request;
      const m = state.messages.get(id)?.message;
      return m && inScope(m, scope) ? one({ op: "deleteMessage", id }, () => true) : NO;
    }
    case "purgeDeleted": {
      const { before, scope } = write.request;
      const op = { op: "purgeDeleted", before, scope: { ...scope } } as const;
      return one(op, (counts) => counts);
    }
    case "deleteUserData": {
      const { userId, tenantId } = write.request.scope;
      if (!state.conversationIdsByUser.has(userId)) return unchanged({ ...NONE });
      const op =
        tenantId === undefined
          ? ({ op: "deleteUserData", userId } as const)
          : ({ op: "deleteUserData", userId, tenantId } as const);
      return one(op, (counts) => counts);
    }
    case "storeTurnTraces":
      return resolveTraces(state, write.request.traces);
    case "putCheckpoint":
      return resolveCheckpoint(state, write.request);
    case "putCheckpointWrites":
      return resolveCheckpointWrites(state, write.request);
    case "deleteCheckpoints": {
      const { id, scope } = write.request;
      const c = state.conversations.get(id);
      if (!c || !inScope(c, scope)) return NO;
      return state.checkpoints.has(id)
        ? one({ op: "deleteCheckpoints", id }, () => true)
        : unchanged(true);
    }
    case "setEmbeddings": {
      const { updates, scope } = write.request;
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
      const op = { op: "setEmbeddings", updates: applicable.map(cloneUpdate) } as const;
      return one(op, (set) => set);
    }
  }
}

/**
 * The messages of a write, as stored: the request's own record where the store kept its copy
 * unchanged, else a copy of what it stored (`tenantId` filled, a stale embedding cleared, a
 * session's timestamp chosen).
 */
function putMessages(
  messages: readonly Message[],
  copies: Message[],
  ensure?: StoredConversation | RequestOf<"storeSessionMessages">["conversation"],
): Resolved<Message[]> {
  const op = ensure
    ? ({
        op: "putMessages",
        messages: copies,
        ensureConversation: cloneConversation(ensure),
      } as const)
    : ({ op: "putMessages", messages: copies } as const);
  return one(op, (stored) =>
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
function resolveSession(
  state: MemoryState,
  request: RequestOf<"storeSessionMessages">,
): Resolved<Message[]> {
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
function sessionCopies(
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

/**
 * `putCheckpoint`: the conversation as a session write checks or creates it, then the messages
 * (as `storeSessionMessages` stores them), the traces (checked as if the messages were stored)
 * and the checkpoint, as one write.
 */
function resolveCheckpoint(
  state: MemoryState,
  request: RequestOf<"putCheckpoint">,
): Resolved<undefined> {
  const { conversation, checkpoint, traces } = request;
  const existing = checkSessionConversation(state, conversation);
  const created = existing ? undefined : conversation;
  const copies = sessionCopies(state, existing, request);
  checkMessages(state, copies, created, "live");
  const tenantId = (existing ?? conversation).tenantId;
  const within: WriteContext = {
    messages: new Map(copies.map((m) => [m.id, { ...m, tenantId: m.tenantId ?? tenantId }])),
    ...(created ? { conversation: created } : {}),
  };
  const claimed = new Map<string, string>();
  for (const t of traces) {
    checkTrace(state, t, "live", claimed, within);
    claimed.set(t.messageId, t.id);
  }
  const ops: Operation[] = [];
  if (copies.length > 0)
    ops.push(
      created
        ? { op: "putMessages", messages: copies, ensureConversation: cloneConversation(created) }
        : { op: "putMessages", messages: copies },
    );
  for (const t of traces) ops.push({ op: "putTurnTrace", trace: cloneTrace(t) });
  const record = copyCheckpoint(checkpoint);
  ops.push(
    created && copies.length === 0
      ? { op: "putCheckpoint", checkpoint: record, ensureConversation: cloneConversation(created) }
      : { op: "putCheckpoint", checkpoint: record },
  );
  return { ops, answer: () => undefined };
}

/** `putCheckpointWrites`: the conversation checked or created as for a checkpoint. */
function resolveCheckpointWrites(
  state: MemoryState,
  request: RequestOf<"putCheckpointWrites">,
): Resolved<undefined> {
  const { conversation, writes } = request;
  const existing = checkSessionConversation(state, conversation);
  const copy = {
    ...writes,
    writes: writes.writes.map((w) => ({ ...w, value: copyValue(w.value) })),
  };
  return {
    ops: [
      existing
        ? { op: "putCheckpointWrites", writes: copy }
        : {
            op: "putCheckpointWrites",
            writes: copy,
            ensureConversation: cloneConversation(conversation),
          },
    ],
    answer: () => undefined,
  };
}

function copyCheckpoint(c: CheckpointRecord): CheckpointRecord {
  return {
    ...c,
    checkpoint: copyValue(c.checkpoint),
    channelVersions: { ...c.channelVersions },
    metadata: cloneJson(c.metadata),
    values: c.values.map((v) => ({ ...v, value: copyValue(v.value) })),
  };
}

const copyValue = (v: SerializedValue): SerializedValue => ({
  type: v.type,
  data: new Uint8Array(v.data),
});

/**
 * A trace batch, all or nothing: every trace is checked, in array order, as if those before it
 * were stored (a message they take has its trace), before any is applied.
 */
function resolveTraces(state: MemoryState, traces: readonly TurnTrace[]): Resolved<TurnTrace[]> {
  const claimed = new Map<string, string>();
  for (const t of traces) {
    checkTrace(state, t, "live", claimed);
    claimed.set(t.messageId, t.id);
  }
  const copies = traces.map(cloneTrace);
  return {
    ops: copies.map((trace) => ({ op: "putTurnTrace", trace })),
    answer: (stored) =>
      (stored as TurnTrace[]).map((t, i) => (t === copies[i] ? traces[i]! : cloneTrace(t))),
  };
}

function cloneUpdate(u: EmbeddingUpdate): EmbeddingUpdate {
  return { id: u.id, embedding: u.embedding.slice(), originalContent: u.originalContent };
}
