import { IntegrityError, type Message } from "@message-store/core";
import { ownerRefusal } from "@message-store/core/adapter";
import type { MongoContext } from "./collections.js";
import type { ConversationRules } from "./sequence-reservation.js";

const q = JSON.stringify;

/** What a batch needs of one conversation: how many messages, up to when, and its rules. */
export interface Group {
  count: number;
  maxTimestamp: number;
  rules: ConversationRules;
}

/**
 * The batch grouped by conversation, in first-appearance order, with the conditions each
 * conversation must meet (see `ConversationRules`): its `userId` is the messages' (so they must
 * agree), its `tenantId` the one they give (if any), and it is live if any message is. Messages
 * that contradict each other are refused here, before any I/O.
 */
export function groupByConversation(messages: readonly Message[]): Map<string, Group> {
  const groups = new Map<string, Group & { tenantId: string | null; live: boolean }>();
  for (const m of messages) {
    const g = groups.get(m.conversationId);
    if (!g) {
      groups.set(m.conversationId, {
        count: 1,
        maxTimestamp: m.timestamp,
        rules: { userId: m.userId },
        tenantId: m.tenantId,
        live: m.deletedAt === null,
      });
      continue;
    }
    if (m.userId !== g.rules.userId) throw notTheOwner(m);
    if (m.tenantId !== null && g.tenantId !== null && m.tenantId !== g.tenantId) {
      throw notTheOwner(m);
    }
    g.count++;
    g.maxTimestamp = Math.max(g.maxTimestamp, m.timestamp);
    g.tenantId ??= m.tenantId;
    g.live ||= m.deletedAt === null;
  }
  for (const g of groups.values()) {
    if (g.tenantId !== null) g.rules.tenantId = g.tenantId;
    if (g.live) g.rules.deletedAt = null;
  }
  return groups;
}

function notTheOwner(m: Message): IntegrityError {
  return ownerRefusal(
    `message ${q(m.id)}: its userId and tenantId must be those of conversation ${q(m.conversationId)}`,
    "conversation",
    m.conversationId,
  );
}

/** The refusal of a write into a conversation that does not exist. */
export function missingConversation(conversationId: string): IntegrityError {
  return ownerRefusal(
    `conversation ${q(conversationId)} does not exist`,
    "conversation",
    conversationId,
  );
}

/** The refusal of a write whose owner is not the one stored on its conversation. */
export function otherOwner(conversationId: string): IntegrityError {
  return ownerRefusal(
    `a message's userId and tenantId must be those of conversation ${q(conversationId)}`,
    "conversation",
    conversationId,
  );
}

/** The refusal of a live write into a soft-deleted conversation (not an owner refusal). */
export function deletedConversation(conversationId: string): IntegrityError {
  return new IntegrityError(
    `conversation ${q(conversationId)} is soft-deleted; restore it before writing to it`,
  );
}

/**
 * Why a conversation did not take the batch (its reserving update matched nothing): read on that
 * failure only, to word the `IntegrityError`.
 */
export async function refusal(
  ctx: MongoContext,
  conversationId: string,
  rules: ConversationRules,
): Promise<IntegrityError> {
  const c = await ctx.conversations.findOne(
    { _id: conversationId },
    { projection: { userId: 1, tenantId: 1, deletedAt: 1 } },
  );
  if (!c) return missingConversation(conversationId);
  if (c.userId !== rules.userId || ("tenantId" in rules && c.tenantId !== rules.tenantId)) {
    return otherOwner(conversationId);
  }
  return deletedConversation(conversationId);
}

/** What a stored message says about an upsert of its id (see {@link storedRule}). */
export interface StoredMessage {
  conversationId: string;
  userId: string;
  tenantId?: string | null;
  deletedAt?: number | null;
}

/**
 * The rule an upsert of `m` breaks against the stored message with its id, or `null`: it may not
 * move to another conversation (an owner refusal when the stored one is another owner's, so a
 * view learns nothing of it) nor change `deletedAt`.
 */
export function storedRule(m: Message, old: StoredMessage): IntegrityError | null {
  if (old.conversationId !== m.conversationId) {
    const message = `message ${q(m.id)} belongs to conversation ${q(old.conversationId)}; an upsert cannot move it`;
    const sameOwner =
      old.userId === m.userId && (m.tenantId === null || (old.tenantId ?? null) === m.tenantId);
    return sameOwner ? new IntegrityError(message) : ownerRefusal(message, "message", m.id);
  }
  if ((old.deletedAt ?? null) !== m.deletedAt) {
    return new IntegrityError(
      `message ${q(m.id)}: deletedAt changes only through softDeleteMessage and restoreMessage`,
    );
  }
  return null;
}

/**
 * Checks the batch against the messages already stored with its ids (one read): a message may
 * not move to another conversation nor change `deletedAt` (`IntegrityError`). Returns the batch
 * as it must be stored: an upsert that changes the text while passing back the stored embedding
 * gets `embedding: null` (stale). `changed` says whether any message was changed so.
 */
export async function checkAgainstStored(
  ctx: MongoContext,
  messages: readonly Message[],
): Promise<{ messages: Message[]; changed: boolean }> {
  const stored = await ctx.messages
    .find(
      { _id: { $in: messages.map((m) => m.id) } },
      {
        projection: {
          conversationId: 1,
          userId: 1,
          tenantId: 1,
          deletedAt: 1,
          originalContent: 1,
          embedding: 1,
        },
      },
    )
    .batchSize(messages.length)
    .toArray();
  const byId = new Map(stored.map((doc) => [doc._id, doc]));
  let changed = false;
  const out = messages.map((m) => {
    const old = byId.get(m.id);
    if (!old) return m;
    const broken = storedRule(m, old);
    if (broken) throw broken;
    if (!isStale(m, old)) return m;
    changed = true;
    return { ...m, embedding: null };
  });
  return { messages: out, changed };
}

/** The upsert passes back the stored embedding while it changes the text it was computed from. */
export function isStale(
  m: Message,
  old: { originalContent: string; embedding: number[] | null | undefined },
): boolean {
  if (m.embedding === null || old.originalContent === m.originalContent) return false;
  const e = old.embedding;
  return (
    Array.isArray(e) && e.length === m.embedding.length && e.every((x, i) => x === m.embedding![i])
  );
}
