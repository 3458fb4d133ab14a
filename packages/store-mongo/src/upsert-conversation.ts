import {
  type Conversation,
  type ConversationRecord,
  IntegrityError,
  StorageError,
} from "@message-store/core";
import { ownerRefusal } from "@message-store/core/adapter";
import type { MongoContext } from "./collections.js";
import { assertConversationFits } from "./document-size.js";
import { conversationFields, newIncarnation } from "./documents.js";
import { isDuplicateKey } from "./errors.js";

const MAX_ATTEMPTS = 100;

/**
 * Upserts a conversation, keeping its `lastMessageAt` and `lastSequence`, and sets
 * `lastActivityAt = max(updatedAt, lastMessageAt)` without reading first:
 *
 * - The usual case (new conversation, or `updatedAt` not older than its newest message) is one
 *   upsert whose filter requires `lastMessageAt <= updatedAt`, setting `lastActivityAt = updatedAt`.
 * - When a newer message exists, that filter does not match and the upsert's insert collides with
 *   the existing `_id` (duplicate key). A second update then sets the fields but not
 *   `lastActivityAt`, which already equals `lastMessageAt` unless the previous `updatedAt` was
 *   newer still; only then a third (compare-and-set) update lowers it to `lastMessageAt`.
 *
 * Both updates also filter on the record's `userId`, `tenantId` and `deletedAt`, which an upsert
 * may not change: when the conversation exists with others, neither matches, and a read (on that
 * failure only) tells the `IntegrityError` (an owner refusal for another owner) from a
 * conversation deleted in between. So of two racing creates of one id by different users,
 * exactly one inserts and the other is refused. A record written through a view carries the
 * view's owners, so these filters are the scope too.
 *
 * The second update's returned (previous) document decides whether the third is needed. An
 * outdated one sent into the compare-and-set is harmless (its filter fails and it reads afresh);
 * one that wrongly shows `lastActivityAt` already equal to `lastMessageAt` would leave the
 * previous, newer `updatedAt` as activity. That needs a server returning outdated documents
 * (jongodb under concurrency) and a concurrent upsert of the same conversation moving `updatedAt`
 * past the newest message; checking it would cost a round trip on every such update.
 */
export async function upsertConversation(
  ctx: MongoContext,
  record: ConversationRecord,
): Promise<Conversation> {
  const fields = conversationFields(record);
  assertConversationFits(record.id, fields, ctx.maxDocumentBytes);
  const updatedAt = record.updatedAt;
  const owner = ownerOf(record);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    try {
      await ctx.conversations.updateOne(
        {
          _id: record.id,
          ...owner,
          $or: [{ lastMessageAt: null }, { lastMessageAt: { $lte: updatedAt } }],
        },
        {
          $set: { ...fields, lastActivityAt: updatedAt },
          $setOnInsert: { lastMessageAt: null, lastSequence: 0, incarnation: newIncarnation() },
        },
        { upsert: true },
      );
      return { ...record, lastActivityAt: updatedAt };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const before = await ctx.conversations.findOneAndUpdate(
      { _id: record.id, ...owner, lastMessageAt: { $gt: updatedAt } },
      { $set: fields },
      { returnDocument: "before" },
    );
    if (!before) {
      await assertSameOwner(ctx, record);
      continue; // it changed or was deleted in between: start over
    }
    const lastMessageAt = before.lastMessageAt!;
    if (before.lastActivityAt !== lastMessageAt) {
      const settled = await settleActivity(ctx, record.id, {
        updatedAt,
        lastMessageAt,
        lastActivityAt: before.lastActivityAt,
      });
      return { ...record, lastActivityAt: settled ?? lastMessageAt };
    }
    return { ...record, lastActivityAt: lastMessageAt };
  }
  throw contention(record.id);
}

/** What an upsert may not change: the owner and the soft-delete state. */
function ownerOf(record: ConversationRecord) {
  return { userId: record.userId, tenantId: record.tenantId, deletedAt: record.deletedAt };
}

/** After a conditional update missed: `IntegrityError` when the stored owner or `deletedAt` differs. */
async function assertSameOwner(ctx: MongoContext, record: ConversationRecord): Promise<void> {
  const stored = await ctx.conversations.findOne(
    { _id: record.id },
    { projection: { userId: 1, tenantId: 1, deletedAt: 1 } },
  );
  if (!stored) return;
  const q = JSON.stringify;
  if (stored.userId !== record.userId || (stored.tenantId ?? null) !== record.tenantId) {
    throw ownerRefusal(
      `conversation ${q(record.id)} exists with another userId or tenantId; a conversation's owner never changes`,
      "conversation",
      record.id,
    );
  }
  if ((stored.deletedAt ?? null) !== record.deletedAt) {
    throw new IntegrityError(
      `conversation ${q(record.id)}: deletedAt changes only through softDeleteConversation and restoreConversation`,
    );
  }
}

interface Activity {
  updatedAt: number;
  lastMessageAt: number | null;
  lastActivityAt: number;
}

/** Compare-and-set loop that makes `lastActivityAt` equal `max(updatedAt, lastMessageAt)`. */
async function settleActivity(
  ctx: MongoContext,
  id: string,
  known: Activity,
): Promise<number | null> {
  let state: Activity | null = known;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && state; attempt++) {
    const want = Math.max(state.updatedAt, state.lastMessageAt ?? state.updatedAt);
    if (state.lastActivityAt === want) return want;
    const { updatedAt, lastMessageAt, lastActivityAt } = state;
    const result = await ctx.conversations.updateOne(
      { _id: id, updatedAt, lastMessageAt, lastActivityAt },
      { $set: { lastActivityAt: want } },
    );
    if (result.matchedCount === 1) return want;
    state = await ctx.conversations.findOne({ _id: id });
  }
  if (!state) return null;
  throw contention(id);
}

function contention(id: string): StorageError {
  return new StorageError(
    `conversation ${JSON.stringify(id)} changed under every one of ${MAX_ATTEMPTS} attempts`,
  );
}
