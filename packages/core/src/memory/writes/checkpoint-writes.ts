import type { CheckpointRecord } from "../../models/checkpoint.js";
import type { RequestOf } from "../../store/operation-table.js";
import { inScope } from "../../store/scope.js";
import { copyValue, storeCheckpoint, storeCheckpointWrites } from "../checkpoint-state.js";
import { cloneJson, cloneTrace } from "../clone.js";
import { one, operationKind, type Resolved, unchanged, type WriteSpecs } from "../journal.js";
import type { MemoryState } from "../memory-state.js";
import {
  checkMessages,
  checkSessionConversation,
  checkThread,
  checkTrace,
  type WriteContext,
} from "../operation-rules.js";
import type { Operation } from "../write-table.js";
import { ensureConversation, ensuring, sessionCopies } from "./message-writes.js";

/** Checkpoint puts (with the conversation they create) and their deletion, as operations. */
export const CHECKPOINT_OPERATIONS = {
  putCheckpoint: operationKind(
    { required: { checkpoint: "checkpoint" }, optional: { ensureConversation: "conversation" } },
    (state, op) => {
      ensureConversation(state, op.ensureConversation);
      storeCheckpoint(state.threadCheckpoints(op.checkpoint.conversationId), op.checkpoint);
      return undefined;
    },
    (state, op) => checkThread(state, op.checkpoint.conversationId, op.ensureConversation),
  ),
  putCheckpointWrites: operationKind(
    { required: { writes: "writes" }, optional: { ensureConversation: "conversation" } },
    (state, op) => {
      ensureConversation(state, op.ensureConversation);
      storeCheckpointWrites(state.threadCheckpoints(op.writes.conversationId), op.writes);
      return undefined;
    },
    (state, op) => checkThread(state, op.writes.conversationId, op.ensureConversation),
  ),
  deleteCheckpoints: operationKind({ required: { id: "id" } }, (state, op) =>
    state.checkpoints.delete(op.id),
  ),
};

/** The driver's checkpoint writes; a thread's checkpoints are keyed by their conversation. */
export const CHECKPOINT_WRITES: WriteSpecs<
  "putCheckpoint" | "putCheckpointWrites" | "deleteCheckpoints"
> = {
  putCheckpoint: {
    keys(_, { conversation, messages, traces }) {
      const keys = [`c:${conversation.id}`];
      for (const m of messages) keys.push(`m:${m.id}`);
      for (const t of traces) keys.push(`t:${t.id}`, `m:${t.messageId}`);
      return keys;
    },
    resolve: resolveCheckpoint,
  },
  putCheckpointWrites: {
    keys: (_, { conversation }) => [`c:${conversation.id}`],
    resolve: resolveCheckpointWrites,
  },
  deleteCheckpoints: {
    keys: (_, { id }) => [`c:${id}`],
    resolve(state, { id, scope }) {
      const c = state.conversations.get(id);
      if (!c || !inScope(c, scope)) return unchanged(false);
      return state.checkpoints.has(id)
        ? one({ op: "deleteCheckpoints", id }, () => true)
        : unchanged(true);
    },
  },
};

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
    ops.push(ensuring({ op: "putMessages", messages: copies } as const, created));
  for (const t of traces) ops.push({ op: "putTurnTrace", trace: cloneTrace(t) });
  const record = copyCheckpoint(checkpoint);
  const creates = copies.length === 0 ? created : undefined;
  ops.push(ensuring({ op: "putCheckpoint", checkpoint: record } as const, creates));
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
  const op = { op: "putCheckpointWrites", writes: copy } as const;
  return { ops: [ensuring(op, existing ? undefined : conversation)], answer: () => undefined };
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
