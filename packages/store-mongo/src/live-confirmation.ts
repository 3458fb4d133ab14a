import { StorageError } from "@message-store/core";
import type { MongoContext } from "./collections.js";

/**
 * Why a live write confirms itself. A message write checks that its conversation is live in the
 * update that admits it (the sequence reservation, a session's claim, a restore's update of the
 * conversation), but its messages land in later writes. A soft delete of the conversation can
 * run in between: it stamps the conversation, then the live messages it finds; a message that
 * lands after that pass would stay live in a soft-deleted conversation. Without a transaction
 * around both (a standalone server, or a single message on a replica set, which is not written
 * in one) no check before the landing can exclude that, so the writer looks after it: once its
 * messages are stored it writes the conversation document again, filtered on `deletedAt: null`.
 *
 * - That update matched: the conversation was live after the messages landed, so a later soft
 *   delete finds them. (It is an update, not a read: on a replica set a soft delete runs in a
 *   transaction, and an update of a document that transaction wrote waits for its commit, while
 *   one before its write makes it conflict and run again from a snapshot holding the messages. A
 *   read could see the conversation live while the soft delete is about to commit without them.)
 * - It did not: the conversation was soft-deleted after the write was admitted, so the write
 *   came first and its messages belong to what was deleted. The writer stamps its messages still
 *   live with the conversation's stamp (as the soft delete would have), then checks with one more
 *   update that the conversation still carries that stamp; if it was restored meanwhile, it takes
 *   its stamp back and confirms again.
 *
 * So no live message stays in a soft-deleted conversation once the write has resolved, and
 * restoring the conversation brings the write's messages back. What stays is a window: until
 * the writer confirms, a reader can see the message live, and a writer that dies inside it leaves
 * it so (see the README, "Races").
 */
export async function confirmLive(
  ctx: MongoContext,
  conversationId: string,
  messageIds: readonly string[],
): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await touch(ctx, conversationId, null)) return;
    const conv = await ctx.conversations.findOne(
      { _id: conversationId },
      { projection: { deletedAt: 1 } },
    );
    // Deleted for good: nothing is left to stamp (see the README, "Races").
    if (!conv) return;
    const stamp = conv.deletedAt ?? null;
    if (stamp === null) continue;
    await stampAll(ctx, messageIds, null, stamp);
    if (await touch(ctx, conversationId, stamp)) return;
    await stampAll(ctx, messageIds, stamp, null);
  }
  throw new StorageError(
    `conversation ${JSON.stringify(conversationId)} was soft-deleted and restored under every one of ${MAX_ATTEMPTS} attempts to confirm a write`,
  );
}

const MAX_ATTEMPTS = 100;

/** {@link confirmLive} for each conversation that `messages` wrote live messages into. */
export async function confirmLiveMessages(
  ctx: MongoContext,
  messages: readonly { id: string; conversationId: string; deletedAt: number | null }[],
): Promise<void> {
  const live = new Map<string, string[]>();
  for (const m of messages) {
    if (m.deletedAt !== null) continue;
    const ids = live.get(m.conversationId);
    if (ids) ids.push(m.id);
    else live.set(m.conversationId, [m.id]);
  }
  for (const [conversationId, ids] of live) await confirmLive(ctx, conversationId, ids);
}

/** Writes the conversation if its stamp is `deletedAt`; whether it was. */
async function touch(
  ctx: MongoContext,
  conversationId: string,
  deletedAt: number | null,
): Promise<boolean> {
  const { matchedCount } = await ctx.conversations.updateOne(
    { _id: conversationId, deletedAt },
    { $inc: { confirmedWrites: 1 } },
  );
  return matchedCount === 1;
}

/** Moves the stamp of the messages `ids` and of their traces from `from` to `to`. */
async function stampAll(
  ctx: MongoContext,
  ids: readonly string[],
  from: number | null,
  to: number | null,
): Promise<void> {
  const set = { $set: { deletedAt: to } };
  await ctx.messages.updateMany({ _id: { $in: [...ids] }, deletedAt: from }, set);
  await ctx.traces.updateMany({ messageId: { $in: [...ids] }, deletedAt: from }, set);
}
