import { IntegrityError, type Message } from "@message-store/core";
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
  return new IntegrityError(
    `message ${q(m.id)}: its userId and tenantId must be those of conversation ${q(m.conversationId)}`,
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
  if (!c) return new IntegrityError(`conversation ${q(conversationId)} does not exist`);
  if (c.userId !== rules.userId || ("tenantId" in rules && c.tenantId !== rules.tenantId)) {
    return new IntegrityError(
      `a message's userId and tenantId must be those of conversation ${q(conversationId)}`,
    );
  }
  return new IntegrityError(
    `conversation ${q(conversationId)} is soft-deleted; restore it before writing to it`,
  );
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
      { projection: { conversationId: 1, deletedAt: 1, originalContent: 1, embedding: 1 } },
    )
    .batchSize(messages.length)
    .toArray();
  const byId = new Map(stored.map((doc) => [doc._id, doc]));
  let changed = false;
  const out = messages.map((m) => {
    const old = byId.get(m.id);
    if (!old) return m;
    if (old.conversationId !== m.conversationId) {
      throw new IntegrityError(
        `message ${q(m.id)} belongs to conversation ${q(old.conversationId)}; an upsert cannot move it`,
      );
    }
    if ((old.deletedAt ?? null) !== m.deletedAt) {
      throw new IntegrityError(
        `message ${q(m.id)}: deletedAt changes only through softDeleteMessage and restoreMessage`,
      );
    }
    if (!isStale(m, old)) return m;
    changed = true;
    return { ...m, embedding: null };
  });
  return { messages: out, changed };
}

/** The upsert passes back the stored embedding while it changes the text it was computed from. */
function isStale(
  m: Message,
  old: { originalContent: string; embedding: number[] | null | undefined },
): boolean {
  if (m.embedding === null || old.originalContent === m.originalContent) return false;
  const e = old.embedding;
  return (
    Array.isArray(e) && e.length === m.embedding.length && e.every((x, i) => x === m.embedding![i])
  );
}
