import type { Conversation } from "../models/conversation.js";
import type { MessageStoreApi } from "../store/message-store-api.js";

/** Who a conversation belongs to, and what it gets when {@link ensureConversation} creates it. */
export interface ConversationOwner {
  userId: string;
  /** The conversation's tenant: it is looked up and created through `forTenant(tenantId)`. */
  tenantId?: string | null;
  /** Stored as the conversation's `agentId` when it is created. */
  agentId?: string | null;
  /** Stored as the conversation's `title` when it is created. */
  title?: string | null;
}

/**
 * Resolves to the owner's conversation `id`, creating it (with `agentId` and `title`) when there
 * is none: what a framework bridge needs before it writes a turn whose messages carry their own
 * ids and timestamps (plain turns can go through `storeSessionMessages`, which does this itself).
 *
 * Reads and creates through `store.forUser(owner.userId)` (and `forTenant`), so a conversation
 * of another user or tenant is never returned nor overwritten: it is a `NotFoundError`, exactly as
 * for an id that does not exist elsewhere (chat ids often come from a URL). On a store with
 * `capabilities.tenants` the create is atomic: of two users racing to create one id, one gets
 * the conversation and the other `NotFoundError`. An existing conversation is returned as it is
 * (its `agentId` and `title` are not changed). A soft-deleted conversation of the owner is an
 * `IntegrityError` (restore it first). Also throws `ValidationError` for a bad id or owner,
 * `UnsupportedOperationError` for a `tenantId` on a store without tenants, and the store's
 * errors (`ConnectionError`, …).
 */
export async function ensureConversation(
  store: MessageStoreApi,
  id: string,
  owner: ConversationOwner,
): Promise<Conversation> {
  const user = store.forUser(owner.userId);
  const view = owner.tenantId == null ? user : user.forTenant(owner.tenantId);
  const existing = await view.getConversation(id);
  if (existing) return existing;
  return view.storeConversation({
    id,
    userId: owner.userId,
    tenantId: owner.tenantId ?? null,
    agentId: owner.agentId ?? null,
    title: owner.title ?? null,
  });
}
