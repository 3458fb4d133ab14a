import type { DeletedCounts } from "@message-store/core";
import type { ClientSession } from "mongodb";
import { inTransaction, type MongoContext } from "./collections.js";

/**
 * Deletes a conversation with its messages and their traces; `false` when it did not exist.
 *
 * With transactions the three deletes commit together. Without them (a standalone server) they
 * run children first — traces, messages, then the conversation — so at every moment each visible
 * trace still has its message and each visible message its conversation: a reader may see the
 * conversation lose its messages before it disappears, but never an orphan.
 */
export async function deleteConversationCascade(ctx: MongoContext, id: string): Promise<boolean> {
  if (ctx.transactions) {
    return inTransaction(ctx, async (session) => {
      const removed = await ctx.conversations.deleteOne({ _id: id }, { session });
      if (removed.deletedCount === 0) return false;
      await ctx.messages.deleteMany({ conversationId: id }, { session });
      await ctx.traces.deleteMany({ conversationId: id }, { session });
      return true;
    });
  }
  await ctx.traces.deleteMany({ conversationId: id });
  await ctx.messages.deleteMany({ conversationId: id });
  const removed = await ctx.conversations.deleteOne({ _id: id });
  return removed.deletedCount === 1;
}

/**
 * Deletes every conversation of `userId` (of `tenantId` when given; soft-deleted ones included)
 * with their messages and traces, and counts what went. Same transaction or ordering rules as
 * {@link deleteConversationCascade}.
 */
export async function deleteUserCascade(
  ctx: MongoContext,
  userId: string,
  tenantId: string | undefined,
): Promise<DeletedCounts> {
  const run = async (session?: ClientSession): Promise<DeletedCounts> => {
    const options = session ? { session } : {};
    const filter = tenantId === undefined ? { userId } : { userId, tenantId };
    const owned = await ctx.conversations
      .find(filter, { ...options, projection: { _id: 1 }, batchSize: 1_000_000 })
      .toArray();
    if (owned.length === 0) return { conversations: 0, messages: 0, turnTraces: 0 };
    const ids = owned.map((c) => c._id);
    const traces = await ctx.traces.deleteMany({ conversationId: { $in: ids } }, options);
    const messages = await ctx.messages.deleteMany({ conversationId: { $in: ids } }, options);
    const conversations = await ctx.conversations.deleteMany({ _id: { $in: ids } }, options);
    return {
      conversations: conversations.deletedCount,
      messages: messages.deletedCount,
      turnTraces: traces.deletedCount,
    };
  };
  return ctx.transactions ? inTransaction(ctx, run) : run();
}

/**
 * Deletes one message and its trace; `false` when the message did not exist. Without
 * transactions the trace goes first, so no trace is ever left without its message.
 */
export async function deleteMessageCascade(ctx: MongoContext, id: string): Promise<boolean> {
  const run = async (session?: ClientSession): Promise<boolean> => {
    const options = session ? { session } : {};
    await ctx.traces.deleteMany({ messageId: id }, options);
    const removed = await ctx.messages.deleteOne({ _id: id }, options);
    return removed.deletedCount === 1;
  };
  return ctx.transactions ? inTransaction(ctx, run) : run();
}
