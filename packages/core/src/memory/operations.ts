import type { CheckpointRecord, CheckpointWritesRecord } from "../models/checkpoint.js";
import type { ConversationRecord } from "../models/conversation.js";
import type { Message } from "../models/message.js";
import type { DeletedCounts, Scope } from "../models/queries.js";
import type { EmbeddingUpdate } from "../models/session.js";
import type { TurnTrace } from "../models/turn-trace.js";
import { putCheckpoint, putCheckpointWrites } from "./checkpoint-state.js";
import { type MemoryState, type StoredConversation, storedConversation } from "./memory-state.js";
import {
  checkMessages,
  checkThread,
  checkTrace,
  storedMessage,
  storedTrace,
} from "./operation-rules.js";
import {
  purgeDeleted,
  removeUserData,
  restoreConversation,
  restoreMessage,
  setEmbeddings,
  softDeleteConversation,
  softDeleteMessage,
} from "./soft-delete.js";

/**
 * One change of the state, as data. A write request is checked against the state and resolved
 * into operations (see `resolveWrite`); the same operations are what a persistence journals and
 * replays, and {@link applyOperation} applies them alike in both cases. Everything an operation
 * depends on is in it (a soft delete carries its time, a session its chosen timestamps), so
 * applying it to the state it was resolved against always gives the same state.
 *
 * The JSON store's journal lines are these values (plus `gen`): the union only ever gains
 * optional fields, so every line ever written stays readable.
 */
export type Operation =
  | { op: "putConversation"; conversation: ConversationRecord }
  | { op: "deleteConversation"; id: string }
  | { op: "softDeleteConversation"; id: string; deletedAt: number }
  | { op: "restoreConversation"; id: string }
  | { op: "putMessages"; messages: Message[]; ensureConversation?: ConversationRecord }
  | { op: "flagMessage"; id: string; flagged: boolean }
  | { op: "softDeleteMessage"; id: string; deletedAt: number }
  | { op: "restoreMessage"; id: string }
  | { op: "deleteMessage"; id: string }
  | { op: "purgeDeleted"; before: number; scope: Scope }
  | { op: "setEmbeddings"; updates: EmbeddingUpdate[] }
  | { op: "putTurnTrace"; trace: TurnTrace }
  | { op: "deleteUserData"; userId: string; tenantId?: string }
  | { op: "putCheckpoint"; checkpoint: CheckpointRecord; ensureConversation?: ConversationRecord }
  | {
      op: "putCheckpointWrites";
      writes: CheckpointWritesRecord;
      ensureConversation?: ConversationRecord;
    }
  | { op: "deleteCheckpoints"; id: string };

/** What applying each operation returns: the stored records themselves (callers copy them). */
interface Results {
  putConversation: StoredConversation;
  deleteConversation: boolean;
  softDeleteConversation: boolean;
  restoreConversation: boolean;
  putMessages: Message[];
  flagMessage: Message | null;
  softDeleteMessage: boolean;
  restoreMessage: boolean;
  deleteMessage: boolean;
  purgeDeleted: DeletedCounts;
  setEmbeddings: number;
  putTurnTrace: TurnTrace;
  deleteUserData: DeletedCounts;
  putCheckpoint: undefined;
  putCheckpointWrites: undefined;
  deleteCheckpoints: boolean;
}

/** What {@link applyOperation} returns for `O`. */
export type OperationResult<O extends Operation> = Results[O["op"]];

/**
 * Checks an operation read back from a journal against the state before it is applied: only
 * the referential rules the state itself needs (a message's conversation exists, a message does
 * not change conversation, a trace's message exists in its conversation and has no other trace).
 * The contract's other rules were checked when the operation was resolved, possibly by an older
 * version with fewer rules (a conversation's owner could change, a trace could move), so they
 * are not checked again. Throws `IntegrityError`.
 */
export function checkOperation(state: MemoryState, op: Operation): void {
  if (op.op === "putMessages") checkMessages(state, op.messages, op.ensureConversation, "replay");
  else if (op.op === "putTurnTrace") checkTrace(state, op.trace, "replay");
  else if (op.op === "putCheckpoint")
    checkThread(state, op.checkpoint.conversationId, op.ensureConversation);
  else if (op.op === "putCheckpointWrites")
    checkThread(state, op.writes.conversationId, op.ensureConversation);
}

/** Applies an operation. Synchronous and infallible, so it is never seen half done. */
export function applyOperation<O extends Operation>(state: MemoryState, op: O): OperationResult<O> {
  return apply(state, op) as OperationResult<O>;
}

function apply(state: MemoryState, op: Operation): Results[keyof Results] {
  switch (op.op) {
    case "putConversation": {
      const old = state.conversations.get(op.conversation.id);
      const stored = storedConversation(op.conversation, old?.lastMessageAt ?? null);
      state.setConversation(stored);
      return stored;
    }
    case "deleteConversation":
      return state.removeConversation(op.id) !== null;
    case "softDeleteConversation":
      return softDeleteConversation(state, op.id, op.deletedAt);
    case "restoreConversation":
      return restoreConversation(state, op.id);
    case "deleteUserData":
      return removeUserData(state, op.userId, op.tenantId);
    case "flagMessage": {
      const entry = state.messages.get(op.id);
      if (!entry || entry.message.deletedAt !== null) return null;
      if (entry.message.isFlagged !== op.flagged)
        state.replaceMessage(entry, { ...entry.message, isFlagged: op.flagged });
      return entry.message;
    }
    case "softDeleteMessage":
      return softDeleteMessage(state, op.id, op.deletedAt);
    case "restoreMessage":
      return restoreMessage(state, op.id);
    case "deleteMessage":
      return state.removeMessage(op.id);
    case "purgeDeleted":
      return purgeDeleted(state, op.before, op.scope);
    case "setEmbeddings":
      return setEmbeddings(state, op.updates);
    case "putMessages": {
      ensure(state, op.ensureConversation);
      return op.messages.map((m) => {
        const stored = storedMessage(state, m);
        state.putMessage(stored);
        return stored;
      });
    }
    case "putTurnTrace": {
      const stored = storedTrace(state, op.trace);
      state.putTrace(stored);
      return stored;
    }
    case "putCheckpoint":
      ensure(state, op.ensureConversation);
      putCheckpoint(state.threadCheckpoints(op.checkpoint.conversationId), op.checkpoint);
      return undefined;
    case "putCheckpointWrites":
      ensure(state, op.ensureConversation);
      putCheckpointWrites(state.threadCheckpoints(op.writes.conversationId), op.writes);
      return undefined;
    case "deleteCheckpoints":
      return state.checkpoints.delete(op.id);
  }
}

/** Creates the conversation an operation carries when it is missing. */
function ensure(state: MemoryState, conversation: ConversationRecord | undefined): void {
  if (conversation && !state.conversations.has(conversation.id))
    state.setConversation(storedConversation(conversation, null));
}
