import { type DeletedCounts, type Scope, StorageError } from "@message-store/core";
import type { ClientSession } from "mongodb";
import { atomically, type MongoContext } from "./collections.js";
import { deleteThreadCheckpoints } from "./delete-checkpoints.js";
import { inScope } from "./queries.js";

/*
 * Hard deletes. Every filter carries the scope (`inScope`): a message and a trace carry their
 * conversation's owners, so a record outside the scope is not matched, by any of the commands.
 */

const opts = (session: ClientSession | undefined) => (session ? { session } : {});

/** Attempts of a conversation delete that a concurrent first checkpoint write made start over. */
const MAX_ATTEMPTS = 5;

/**
 * Deletes a conversation in `scope` with its messages, their traces and (when it has any, as its
 * `hasCheckpoints` says) its checkpoints; `false` when there is none.
 *
 * One read (is it there, in the scope, with checkpoints?), then the deletes, children first —
 * checkpoints, traces, messages, then the conversation. With transactions they commit together;
 * without them (a standalone server) each commits on its own, and the order keeps every visible
 * trace with its message and every visible message with its conversation: a reader may see the
 * conversation lose its messages before it disappears, but never an orphan.
 *
 * A checkpoint put racing the delete may still write after it (without transactions, or on a
 * server whose transactions miss the conflict): its documents name the conversation's
 * incarnation, which no reader joins once the conversation is gone (see `read-checkpoints.ts`).
 * To leave none behind, the conversation is removed only in the `hasCheckpoints` state read
 * (else the attempt starts over), and a thread with checkpoints is swept of its incarnation's
 * documents once the removal committed; a put sweeps them itself when it sees the incarnation
 * gone after writing (`write-checkpoints.ts`). One of the two always sees the other's write.
 */
export async function deleteConversationCascade(
  ctx: MongoContext,
  id: string,
  scope: Scope,
): Promise<boolean> {
  const owners = inScope(scope);
  for (let attempt = 1; ; attempt++) {
    const outcome = await atomically(ctx, async (session) => {
      const o = opts(session);
      const thread = await ctx.conversations.findOne(
        { _id: id, ...owners },
        { ...o, projection: { hasCheckpoints: 1, incarnation: 1 } },
      );
      if (!thread) return null;
      const marked = thread.hasCheckpoints === true;
      if (marked) await deleteThreadCheckpoints(ctx, { conversationId: id }, o);
      await ctx.traces.deleteMany({ conversationId: id, ...owners }, o);
      await ctx.messages.deleteMany({ conversationId: id, ...owners }, o);
      const removed = await ctx.conversations.deleteOne(
        { _id: id, ...owners, hasCheckpoints: marked ? true : { $ne: true } },
        o,
      );
      return { removed: removed.deletedCount === 1, marked, incarnation: thread.incarnation };
    });
    if (outcome === null) return false;
    if (outcome.removed) {
      if (outcome.marked) {
        const incarnation = outcome.incarnation ?? { $exists: false as const };
        await deleteThreadCheckpoints(ctx, { conversationId: id, incarnation }, {});
      }
      return true;
    }
    if (attempt >= MAX_ATTEMPTS) {
      throw new StorageError(
        `the delete of conversation ${JSON.stringify(id)} lost to concurrent writers ${MAX_ATTEMPTS} times`,
      );
    }
  }
}

/**
 * Deletes every conversation in `scope` (a user's, of one tenant when the scope has one;
 * soft-deleted ones included) with their messages and traces, and counts what went. Same
 * transaction or ordering rules as {@link deleteConversationCascade}.
 */
export function deleteUserCascade(
  ctx: MongoContext,
  scope: Scope & { userId: string },
): Promise<DeletedCounts> {
  return atomically(ctx, async (session): Promise<DeletedCounts> => {
    const o = opts(session);
    const owned = await ctx.conversations
      .find(inScope(scope), {
        ...o,
        projection: { _id: 1, hasCheckpoints: 1 },
        batchSize: 1_000_000,
      })
      .toArray();
    if (owned.length === 0) return { conversations: 0, messages: 0, turnTraces: 0 };
    const ids = owned.map((c) => c._id);
    const threads = owned.filter((c) => c.hasCheckpoints).map((c) => c._id);
    if (threads.length > 0)
      await deleteThreadCheckpoints(ctx, { conversationId: { $in: threads } }, o);
    const traces = await ctx.traces.deleteMany({ conversationId: { $in: ids } }, o);
    const messages = await ctx.messages.deleteMany({ conversationId: { $in: ids } }, o);
    const conversations = await ctx.conversations.deleteMany({ _id: { $in: ids } }, o);
    return {
      conversations: conversations.deletedCount,
      messages: messages.deletedCount,
      turnTraces: traces.deletedCount,
    };
  });
}

/**
 * Deletes one message in `scope` and its trace; `false` when there is no such message. Without
 * transactions the trace goes first, so no trace is ever left without its message.
 */
export function deleteMessageCascade(
  ctx: MongoContext,
  id: string,
  scope: Scope,
): Promise<boolean> {
  const owners = inScope(scope);
  return atomically(ctx, async (session) => {
    const o = opts(session);
    await ctx.traces.deleteMany({ messageId: id, ...owners }, o);
    const removed = await ctx.messages.deleteOne({ _id: id, ...owners }, o);
    return removed.deletedCount === 1;
  });
}
