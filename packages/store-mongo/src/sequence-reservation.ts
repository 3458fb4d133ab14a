import { StorageError } from "@message-store/core";
import type { Filter, WithId } from "mongodb";
import type { MongoContext } from "./collections.js";
import type { ConversationDoc } from "./documents.js";

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
  /** Last number of the block. */
  lastSequence: number;
  /** Set when the reservation moved `lastMessageAt`/`lastActivityAt` forward. */
  undo: ActivityUndo | null;
  /** The conversation's tenant, which the batch's messages inherit. */
  tenantId: string | null;
}

/**
 * What the conversation must be for the batch to go in (ownership and soft delete), as filter
 * conditions of the reserving update: a conversation that is not is left untouched, as a missing
 * one is, and the write stops before any message is stored.
 */
export type ConversationRules = Filter<ConversationDoc>;

const MAX_ATTEMPTS = 100;

/**
 * Reserves `count` sequence numbers in conversation `conversationId` and moves its activity
 * forward to `maxTimestamp`; resolves to `null` when the conversation does not exist or breaks
 * `rules`.
 *
 * MongoDB's `$max` would do the activity part in the same update, but it is not used (the
 * default test server lacks it); a condition in the filter does the same for the common case:
 * when the new messages are at least as recent as all activity (`lastActivityAt <= ts`), one
 * `findOneAndUpdate` both reserves and sets `lastMessageAt = lastActivityAt = ts`. Otherwise a
 * second update only reserves, and if `lastMessageAt` is still older than `ts` (the conversation
 * was updated after the message's timestamp), a compare-and-set moves it.
 *
 * The returned document gives the block and the undo. A server that returns an outdated one
 * (jongodb does under concurrency: it may evaluate a `findAndModify` against an outdated version
 * of the document, apply the update to the current one and return the outdated one) hands one
 * block to two writers; the unique `{ conversationId, sequence }` index then rejects the second
 * insert and the writer reserves again. An undo built from an outdated document expects a
 * `lastSequence` the counter has already passed, so it never matches (the activity change is
 * kept, never rolled back wrongly). Such a server may also have matched the first update's
 * `lastActivityAt <= ts` against the outdated version and set the activity back; the writer that
 * sees the collision repairs that (`repairActivity`). MongoDB does none of this.
 */
export async function reserveSequences(
  ctx: MongoContext,
  conversationId: string,
  count: number,
  maxTimestamp: number,
  rules: ConversationRules,
): Promise<Reservation | null> {
  const before = await ctx.conversations.findOneAndUpdate(
    { _id: conversationId, ...rules, lastActivityAt: { $lte: maxTimestamp } },
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
      lastSequence: before.lastSequence + count,
      undo: unchanged ? null : undo,
      tenantId: before.tenantId ?? null,
    };
  }
  const after = await ctx.conversations.findOneAndUpdate(
    { _id: conversationId, ...rules },
    { $inc: { lastSequence: count } },
    { returnDocument: "after" },
  );
  if (!after) return null;
  return {
    conversationId,
    firstSequence: after.lastSequence - count + 1,
    lastSequence: after.lastSequence,
    undo: await advance(ctx, after, maxTimestamp),
    tenantId: after.tenantId ?? null,
  };
}

/**
 * Compare-and-set loop: `lastMessageAt = max(lastMessageAt, ts)`, `lastActivityAt` recomputed.
 * `start` is the state to begin from (a returned image or a read; `null`: the conversation is
 * gone). Each attempt is an `updateOne` whose filter is the whole state it was computed from,
 * `lastSequence` included, so on success the state it left is known exactly (for the undo) and a
 * wrong `start` only costs a failed attempt and a fresh read. Not a `findOneAndUpdate`: jongodb
 * may match that one's filter against an outdated document and apply the `$set` to the current
 * one (moving `lastMessageAt` back), while its `update` matches atomically. The early exit trusts
 * a state whose `lastMessageAt >= ts`: `lastMessageAt` only moves forward, so an outdated document
 * cannot show it higher than it is (only the undo of a failed write lowers it; see "Races").
 */
async function advance(
  ctx: MongoContext,
  start: WithId<ConversationDoc> | null,
  ts: number,
): Promise<ActivityUndo | null> {
  let state = start;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!state) return null;
    if (state.lastMessageAt !== null && state.lastMessageAt >= ts) return null;
    const expected = {
      _id: state._id,
      lastSequence: state.lastSequence,
      updatedAt: state.updatedAt,
      lastMessageAt: state.lastMessageAt,
      lastActivityAt: state.lastActivityAt,
    };
    const lastActivityAt = Math.max(state.updatedAt, ts);
    const { matchedCount } = await ctx.conversations.updateOne(expected, {
      $set: { lastMessageAt: ts, lastActivityAt },
    });
    if (matchedCount === 1) {
      return {
        filter: { ...expected, lastMessageAt: ts, lastActivityAt },
        restore: { lastMessageAt: state.lastMessageAt, lastActivityAt: state.lastActivityAt },
      };
    }
    state = await ctx.conversations.findOne({ _id: state._id });
  }
  throw new StorageError(
    `conversation ${JSON.stringify(start?._id)} changed under every one of ${MAX_ATTEMPTS} attempts`,
  );
}

/**
 * Moves the activity of `conversationId` forward to its newest stored message, if it is behind.
 * Run after a sequence collision: a collision means some reservation in the conversation got an
 * outdated document back, and a server that does that (jongodb) may also have matched the
 * reservation's `lastActivityAt <= ts` filter against that outdated document, setting the
 * activity back below a newer message's timestamp. Never moves anything backward.
 */
export async function repairActivity(ctx: MongoContext, conversationId: string): Promise<void> {
  const [newest] = await ctx.messages
    .find(
      { conversationId },
      { sort: { timestamp: -1, sequence: -1 }, limit: 1, projection: { timestamp: 1 } },
    )
    .toArray();
  if (!newest) return;
  await advance(ctx, await ctx.conversations.findOne({ _id: conversationId }), newest.timestamp);
}

/**
 * Called when a writer reserves again after its write collided (see `writeMessages`): if `next`
 * directly follows the state that the writer's earlier undo in that conversation expects (no other
 * writer reserved in between) and did not move the activity itself, that undo now expects the
 * state after `next`. So a write that finally fails still takes back its activity change, unless
 * another writer touched the conversation meanwhile.
 */
export function carryUndo(earlier: Reservation[], next: Reservation): void {
  if (next.undo) return;
  for (let i = earlier.length - 1; i >= 0; i--) {
    const undo = earlier[i]!.undo;
    if (earlier[i]!.conversationId !== next.conversationId || !undo) continue;
    if (undo.filter.lastSequence === next.firstSequence - 1) {
      undo.filter.lastSequence = next.lastSequence;
    }
    return;
  }
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
