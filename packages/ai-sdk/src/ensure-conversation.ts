import { type Conversation, type MessageStoreApi, NotFoundError } from "@message-store/core";

/** Who a conversation written through the bridge belongs to. */
export interface ConversationOwner {
  userId: string;
  /** Stored as the conversation's `agentId` when the bridge creates it. */
  agentId?: string | null;
  /** Stored as the conversation's `title` when the bridge creates it. */
  title?: string | null;
}

/**
 * Resolves to the conversation, creating it when it does not exist. A conversation of another
 * user is refused with `NotFoundError` (like a scoped view refuses it), never overwritten: chat
 * ids often come from a URL.
 */
export async function ensureConversation(
  store: MessageStoreApi,
  id: string,
  owner: ConversationOwner,
): Promise<Conversation> {
  const existing = await store.getConversation(id);
  if (existing) {
    if (existing.userId === owner.userId) return existing;
    throw new NotFoundError(`conversation ${JSON.stringify(id)} does not exist for this user`, {
      adapter: "ai-sdk",
    });
  }
  return store.storeConversation({
    id,
    userId: owner.userId,
    agentId: owner.agentId ?? null,
    title: owner.title ?? null,
  });
}
