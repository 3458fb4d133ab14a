import { StorageError } from "@message-store/core";
import type { Filter, WithId } from "mongodb";
import type { MongoContext } from "./collections.js";
import type { ConversationDoc } from "./documents.js";
import { ADAPTER } from "./errors.js";

/** How to take back an activity change if the messages it was made for are not stored. */
export interface ActivityUndo {
  /** Matches the conversation only while nothing else changed it since. */
  filter: Filter<ConversationDoc>;
  restore: { lastMessageAt: number | null; lastActivityAt: number };
}

/** A block of sequence numbers reserved in one conversation. */
export interface Reservation {
  conversationId: string;
  /** First number of the block; the block has as many numbers as messages were announced. */
  firstSequence: number;
  /** Set when the reservation moved `lastMessageAt`/`lastActivityAt` forward. */
  undo: ActivityUndo | null;
}

const MAX_ATTEMPTS = 100;

/**
 * Reserves `count` sequence numbers in conversation `conversationId` and moves its activity
 * forward to `maxTimestamp`; resolves to `null` when the conversation does not exist.
 *
 * MongoDB's `$max` would do the activity part in the same update, but it is not used (the
 * default test server lacks it); a condition in the filter does the same for the common case:
 * when the new messages are at least as recent as all activity (`lastActivityAt <= ts`), one
 * `findOneAndUpdate` both reserves and sets `lastMessageAt = lastActivityAt = ts`. Otherwise a
 * second update only reserves, and if `lastMessageAt` is still older than `ts` (the conversation
 * was updated after the message's timestamp), a compare-and-set moves it.
 */
export async function reserveSequences(
  ctx: MongoContext,
  conversationId: string,
  count: number,
  maxTimestamp: number,
): Promise<Reservation | null> {
  const before = await ctx.conversations.findOneAndUpdate(
    { _id: conversationId, lastActivityAt: { $lte: maxTimestamp } },
    {
      $inc: { lastSequence: count },
      $set: { lastMessageAt: maxTimestamp, lastActivityAt: maxTimestamp },
    },
    { returnDocument: "before" },
  );
  if (before) {
    const unchanged =
      before.lastMessageAt === maxTimestamp && before.lastActivityAt === maxTimestamp;
    const undo: ActivityUndo = {
      filter: {
        _id: conversationId,
        lastSequence: before.lastSequence + count,
        updatedAt: before.updatedAt,
        lastMessageAt: maxTimestamp,
        lastActivityAt: maxTimestamp,
      },
      restore: { lastMessageAt: before.lastMessageAt, lastActivityAt: before.lastActivityAt },
    };
    return {
      conversationId,
      firstSequence: before.lastSequence + 1,
      undo: unchanged ? null : undo,
    };
  }
  const after = await ctx.conversations.findOneAndUpdate(
    { _id: conversationId },
    { $inc: { lastSequence: count } },
    { returnDocument: "after" },
  );
  if (!after) return null;
  const firstSequence = after.lastSequence - count + 1;
  return { conversationId, firstSequence, undo: await advance(ctx, after, maxTimestamp) };
}

/** Compare-and-set loop: `lastMessageAt = max(lastMessageAt, ts)`, `lastActivityAt` recomputed. */
async function advance(
  ctx: MongoContext,
  start: WithId<ConversationDoc>,
  ts: number,
): Promise<ActivityUndo | null> {
  let state: WithId<ConversationDoc> | null = start;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && state; attempt++) {
    if (state.lastMessageAt !== null && state.lastMessageAt >= ts) return null;
    const lastActivityAt = Math.max(state.updatedAt, ts);
    const updated: WithId<ConversationDoc> | null = await ctx.conversations.findOneAndUpdate(
      {
        _id: state._id,
        updatedAt: state.updatedAt,
        lastMessageAt: state.lastMessageAt,
        lastActivityAt: state.lastActivityAt,
      },
      { $set: { lastMessageAt: ts, lastActivityAt } },
      { returnDocument: "after" },
    );
    if (updated) {
      return {
        filter: {
          _id: updated._id,
          lastSequence: updated.lastSequence,
          updatedAt: updated.updatedAt,
          lastMessageAt: ts,
          lastActivityAt,
        },
        restore: { lastMessageAt: state.lastMessageAt, lastActivityAt: state.lastActivityAt },
      };
    }
    state = await ctx.conversations.findOne({ _id: state._id });
  }
  if (!state) return null;
  throw new StorageError(
    `conversation ${JSON.stringify(start._id)} changed under every one of ${MAX_ATTEMPTS} attempts`,
    { adapter: ADAPTER },
  );
}

/**
 * Takes back the activity changes of `reservations` (newest first), each only if nothing else
 * changed that conversation since. Best effort: failures are ignored, because the caller is
 * already reporting the error that made the undo necessary.
 */
export async function undoActivity(ctx: MongoContext, reservations: Reservation[]): Promise<void> {
  for (const r of [...reservations].reverse()) {
    if (!r.undo) continue;
    await ctx.conversations.updateOne(r.undo.filter, { $set: r.undo.restore }).catch(() => {});
  }
}
