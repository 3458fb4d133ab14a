import type { DeletedCounts } from "../../models/queries.js";
import { inScope } from "../../store/scope.js";
import { cloneConversation } from "../clone.js";
import { one, operationKind, unchanged, type WriteSpecs } from "../journal.js";
import { conversationView, type MemoryState, storedConversation } from "../memory-state.js";
import { checkConversation } from "../operation-rules.js";

const NONE: DeletedCounts = Object.freeze({ conversations: 0, messages: 0, turnTraces: 0 });
const NO = unchanged(false);

/** Conversation upserts, deletion and erasure, as operations. */
export const CONVERSATION_OPERATIONS = {
  putConversation: operationKind({ required: { conversation: "conversation" } }, (state, op) => {
    const old = state.conversations.get(op.conversation.id);
    const stored = storedConversation(op.conversation, old?.lastMessageAt ?? null);
    state.setConversation(stored);
    return stored;
  }),
  deleteConversation: operationKind(
    { required: { id: "id" } },
    (state, op) => state.removeConversation(op.id) !== null,
  ),
  deleteUserData: operationKind(
    { required: { userId: "id" }, optional: { tenantId: "id" } },
    (state, op) => removeUserData(state, op.userId, op.tenantId),
  ),
};

/** The driver's conversation writes. */
export const CONVERSATION_WRITES: WriteSpecs<
  "storeConversation" | "deleteConversation" | "deleteUserData"
> = {
  storeConversation: {
    keys: (_, { conversation }) => [`c:${conversation.id}`],
    resolve(state, { conversation }) {
      checkConversation(state, conversation);
      const op = { op: "putConversation", conversation: cloneConversation(conversation) } as const;
      return one(op, conversationView);
    },
  },
  deleteConversation: {
    keys: () => null,
    resolve(state, { id, scope }) {
      const c = state.conversations.get(id);
      return c && inScope(c, scope) ? one({ op: "deleteConversation", id }, () => true) : NO;
    },
  },
  deleteUserData: {
    keys: () => null,
    resolve(state, { scope: { userId, tenantId } }) {
      if (!state.conversationIdsByUser.has(userId)) return unchanged({ ...NONE });
      const op =
        tenantId === undefined
          ? ({ op: "deleteUserData", userId } as const)
          : ({ op: "deleteUserData", userId, tenantId } as const);
      return one(op, (counts: DeletedCounts) => counts);
    },
  },
};

/** Erasure: the user's conversations (of one tenant, when given), soft-deleted ones included. */
function removeUserData(
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
