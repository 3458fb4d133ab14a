import type {
  ConversationRecord,
  DeletedCounts,
  EmbeddingUpdate,
  Message,
  TurnTrace,
} from "@message-store/core";
import { type MemoryState, type StoredConversation, storedConversation } from "./memory-state.js";
import {
  type CheckMode,
  checkConversation,
  checkMessages,
  checkRestoreMessage,
  checkTrace,
  storedMessage,
  storedTrace,
} from "./operation-rules.js";
import {
  type OwnerFilter,
  purgeDeleted,
  removeUserData,
  restoreConversation,
  restoreMessage,
  setEmbeddings,
  softDeleteConversation,
  softDeleteMessage,
} from "./soft-delete.js";

/**
 * One committed write. The same value is checked and applied for a live call and when a journal
 * line is replayed, and it is what a journal line holds (plus `gen`, see `FilePersistence`).
 * Everything an operation depends on is in it (a soft delete carries its time), so applying a
 * journal to the state it was written against gives the same state again.
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
  | { op: "purgeDeleted"; before: number; scope: OwnerFilter }
  | { op: "setEmbeddings"; updates: EmbeddingUpdate[] }
  | { op: "putTurnTrace"; trace: TurnTrace }
  | { op: "deleteUserData"; userId: string; tenantId?: string };

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
}

export type { CheckMode, OwnerFilter };
export type ResultOf<O extends Operation> = Results[O["op"]];

/**
 * Checks the integrity rules against the current state. Throws `IntegrityError`; returns
 * `false` when the operation would change nothing (it is then not journaled).
 */
export function checkOperation(state: MemoryState, op: Operation, mode: CheckMode): boolean {
  switch (op.op) {
    case "putConversation":
      if (mode === "live") checkConversation(state, op.conversation);
      return true;
    case "deleteConversation":
      return state.conversations.has(op.id);
    case "softDeleteConversation":
      return state.conversations.get(op.id)?.deletedAt === null;
    case "restoreConversation": {
      const c = state.conversations.get(op.id);
      return c !== undefined && c.deletedAt !== null;
    }
    case "deleteUserData":
      return state.conversationIdsByUser.has(op.userId);
    case "flagMessage": {
      const m = state.messages.get(op.id)?.message;
      return m !== undefined && m.deletedAt === null && m.isFlagged !== op.flagged;
    }
    case "softDeleteMessage":
      return state.messages.get(op.id)?.message.deletedAt === null;
    case "restoreMessage":
      return checkRestoreMessage(state, op.id);
    case "deleteMessage":
      return state.messages.has(op.id);
    case "purgeDeleted":
      return true;
    case "setEmbeddings":
      return op.updates.some((u) => {
        const m = state.messages.get(u.id)?.message;
        return m !== undefined && m.deletedAt === null && m.originalContent === u.originalContent;
      });
    case "putMessages":
      checkMessages(state, op.messages, op.ensureConversation, mode);
      return true;
    case "putTurnTrace":
      checkTrace(state, op.trace, mode);
      return true;
  }
}

/** Applies a checked operation. Synchronous and infallible, so it is never seen half done. */
export function applyOperation<O extends Operation>(state: MemoryState, op: O): ResultOf<O> {
  return apply(state, op) as ResultOf<O>;
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
      const ensure = op.ensureConversation;
      if (ensure && !state.conversations.has(ensure.id))
        state.setConversation(storedConversation(ensure, null));
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
  }
}
