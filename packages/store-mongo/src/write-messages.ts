import { IntegrityError, type Message, StorageError } from "@message-store/core";
import type { ClientSession } from "mongodb";
import { inTransaction, type MongoContext } from "./collections.js";
import { assertMessageFits } from "./document-size.js";
import { messageFields } from "./documents.js";
import { isConnectionFailure, isDuplicateKey, isSequenceConflict } from "./errors.js";
import { confirmLiveMessages } from "./live-confirmation.js";
import {
  insertMessage,
  type MessageUpsert,
  type MessageWrite,
  upsertMessage,
} from "./message-ops.js";
import { checkAgainstStored, type Group, groupByConversation, refusal } from "./message-rules.js";
import {
  carryUndo,
  type Reservation,
  repairActivity,
  reserveSequences,
  undoActivity,
} from "./sequence-reservation.js";

/**
 * How many blocks of sequence numbers a write tries before giving up. Only a server that hands one
 * block to two writers (or a rewound `lastSequence`) makes a block collide with stored messages.
 */
const MAX_SEQUENCE_ATTEMPTS = 20;

/**
 * Upserts a batch of messages, all or nothing, with the integrity rules of the contract.
 *
 * 1. One update per distinct conversation reserves a block of sequence numbers, and proves the
 *    conversation exists, has the messages' owner and is live (when a live message goes in): those
 *    rules are conditions of the update's filter, so they are checked in the write the batch
 *    depends on; see {@link reserveSequences}. The returned document gives the `tenantId` to fill.
 * 2. The messages are written with upserts filtered on `{ _id, conversationId, deletedAt }` (and,
 *    for one with an embedding, on the stored embedding not being the one passed back with a new
 *    text): an existing message keeps its sequence (`$setOnInsert`), and one that exists with
 *    another conversation, another `deletedAt` or a stale embedding makes the upsert insert a
 *    duplicate `_id`. On that failure only, one read ({@link checkAgainstStored}) tells the
 *    `IntegrityError` from a stale embedding, which is cleared and the batch written again. A
 *    single message is one atomic document write; a larger batch runs in a transaction when the
 *    deployment has them.
 * 3. An insert whose sequence is already taken in its conversation fails on the unique
 *    `{ conversationId, sequence }` index; the batch then reserves new blocks and is written again
 *    (see {@link writeAttempt}).
 * 4. On a definite failure that wrote nothing, the activity moved in step 1 is taken back; after
 *    a written batch that collided, the activity is checked against the newest stored message.
 * 5. A written batch that may have inserted live messages confirms each conversation live
 *    (`confirmLive`): step 1's check and step 2's writes are not one atomic unit, so a soft delete
 *    can run between them. An update of a stored live message needs no confirmation: the soft
 *    delete stamps it, or it has, and then the update's filter (`deletedAt: null`) refuses it.
 */
export async function writeMessages(ctx: MongoContext, input: Message[]): Promise<Message[]> {
  // Every document is built (and its size checked) before the first round trip.
  for (const m of input) assertMessageFits(m, messageFields(m), ctx.maxDocumentBytes);
  const groups = groupByConversation(input);
  // Without a transaction a failing bulk write keeps what it wrote before the failure, so the
  // rules on stored messages are checked first (one read); a concurrent writer can still slip in
  // between (see the README).
  const batch = { messages: input };
  if (!ctx.transactions && input.length > 1)
    batch.messages = (await checkAgainstStored(ctx, input)).messages;
  const reservations: Reservation[] = [];
  // A failed bulk write without a transaction may have stored part of the batch; the activity
  // moved for those messages must then stay.
  let maybePartial = false;
  let conflict: unknown = null;
  let inserted = false;
  try {
    const highest = new Map<string, number>();
    let written = false;
    for (let attempt = 1; attempt <= MAX_SEQUENCE_ATTEMPTS && !written; attempt++) {
      const blocks = await reserveAll(ctx, groups, reservations);
      // A retry's block must come after the previous one, or the batch would lose its array order.
      const ordered = blocks.every(
        (r) => r.firstSequence > (highest.get(r.conversationId) ?? Number.NEGATIVE_INFINITY),
      );
      for (const r of blocks) {
        highest.set(r.conversationId, Math.max(highest.get(r.conversationId) ?? 0, r.lastSequence));
      }
      if (!ordered) continue;
      maybePartial ||= !ctx.transactions && input.length > 1;
      batch.messages = withTenants(batch.messages, blocks);
      try {
        const attempt = await writeAttempt(ctx, batch.messages, blocks);
        batch.messages = attempt.messages;
        inserted ||= attempt.inserted;
        written = true;
      } catch (error) {
        if (!isSequenceConflict(error)) throw error;
        conflict = error;
      }
    }
    if (!written) {
      throw new StorageError(
        `no block of sequence numbers in ${MAX_SEQUENCE_ATTEMPTS} attempts was free in conversation ${[...groups.keys()].map((id) => JSON.stringify(id)).join(", ")}`,
        { cause: conflict },
      );
    }
  } catch (error) {
    if (!maybePartial && !isConnectionFailure(error)) await undoActivity(ctx, reservations);
    throw error;
  }
  // Written. After a collision (a server returning outdated documents), the activity may need
  // setting forward again; see `repairActivity`.
  if (conflict !== null) {
    for (const conversationId of groups.keys()) await repairActivity(ctx, conversationId);
  }
  if (inserted) await confirmLiveMessages(ctx, batch.messages);
  return batch.messages;
}

/** The messages with `tenantId: null` filled from their conversation (as reserved). */
function withTenants(messages: Message[], blocks: Reservation[]): Message[] {
  const tenants = new Map(blocks.map((r) => [r.conversationId, r.tenantId]));
  return messages.map((m) => {
    const tenantId = m.tenantId ?? tenants.get(m.conversationId) ?? null;
    return tenantId === m.tenantId ? m : { ...m, tenantId };
  });
}

/** Reserves a block in each conversation of the batch, adding the reservations to `made`. */
async function reserveAll(
  ctx: MongoContext,
  groups: Map<string, Group>,
  made: Reservation[],
): Promise<Reservation[]> {
  const blocks: Reservation[] = [];
  for (const [conversationId, group] of groups) {
    const r = await reserveSequences(
      ctx,
      conversationId,
      group.count,
      group.maxTimestamp,
      group.rules,
    );
    if (!r) throw await refusal(ctx, conversationId, group.rules);
    carryUndo(made, r);
    made.push(r);
    blocks.push(r);
  }
  return blocks;
}

/**
 * Writes the whole batch with sequences from `blocks`, in array order per conversation, and
 * resolves to it as stored, with whether it may have inserted a message (false only when a
 * single message's upsert updated a stored one).
 *
 * After a sequence collision the caller runs this again with new, greater blocks, for the whole
 * batch: with a transaction nothing of the failed attempt was stored; without one, an ordered bulk
 * write stored the messages before the colliding one, and their upserts now only update (an
 * existing message keeps its sequence), so they keep their numbers from the earlier block and
 * the rest take numbers after it. Array order holds either way.
 */
async function writeAttempt(
  ctx: MongoContext,
  input: Message[],
  blocks: Reservation[],
): Promise<{ messages: Message[]; inserted: boolean }> {
  let messages = input;
  // Without a transaction a batch is first written as inserts: most batches are new messages, and
  // an insert is cheaper than an upsert (much cheaper on jongodb, whose upserts scan: 1,200 took
  // 28 s against 0.8 s). If one exists, the batch is written again as upserts (the ordered insert
  // may have stored those before it; their upserts then only update, keeping their sequence).
  // In a transaction the batch is upserted at once: on MongoDB an upsert of a new id costs about
  // an insert, and a failed insert would abort the transaction and cost a second one.
  let inserting = !ctx.transactions && messages.length > 1;
  for (let attempt = 1; ; attempt++) {
    const next = new Map(blocks.map((r) => [r.conversationId, r.firstSequence]));
    const ops = messages.map((m) => {
      const sequence = next.get(m.conversationId)!;
      next.set(m.conversationId, sequence + 1);
      return inserting ? insertMessage(m, sequence) : upsertMessage(m, sequence);
    });
    try {
      return { messages, inserted: await write(ctx, ops) };
    } catch (error) {
      if (!isDuplicateKey(error) || isSequenceConflict(error)) throw error;
      if (inserting) {
        inserting = false;
        attempt--;
        continue;
      }
      // A duplicate `_id`: the message exists with another conversation or `deletedAt` (the
      // read throws the `IntegrityError`), or with a stale embedding (cleared, written again),
      // or a concurrent upsert of the same new id inserted first (written again: it updates).
      const checked = await checkAgainstStored(ctx, messages);
      messages = checked.messages;
      if (attempt >= MAX_DUPLICATE_ATTEMPTS) {
        throw new IntegrityError("a message of the batch kept colliding with a stored one", {
          cause: error,
        });
      }
    }
  }
}

/** Writes of a batch that meets a duplicate `_id` (see {@link writeAttempt}). */
const MAX_DUPLICATE_ATTEMPTS = 3;

/** Runs the writes; false when they surely inserted nothing (a single upsert that updated). */
async function write(ctx: MongoContext, ops: MessageWrite[]): Promise<boolean> {
  const [only] = ops;
  if (ops.length === 1 && only && "updateOne" in only) {
    const { filter, update } = only.updateOne as MessageUpsert["updateOne"];
    const result = await ctx.messages.updateOne(filter, update, { upsert: true });
    return result.upsertedCount > 0;
  }
  if (ctx.transactions) {
    await inTransaction(ctx, (session: ClientSession) =>
      ctx.messages.bulkWrite(ops, { session, ordered: true }),
    );
  } else {
    await ctx.messages.bulkWrite(ops, { ordered: true });
  }
  return true;
}
