import { IntegrityError, type Message, StorageError } from "@message-store/core";
import type { AnyBulkWriteOperation, ClientSession } from "mongodb";
import { inTransaction, type MongoContext } from "./collections.js";
import { assertMessageFits } from "./document-size.js";
import { type MessageDoc, messageFields } from "./documents.js";
import { isConnectionFailure, isDuplicateKey, isSequenceConflict } from "./errors.js";
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
 * 1. One update per distinct conversation reserves a block of sequence numbers (and proves the
 *    conversation exists); see {@link reserveSequences}.
 * 2. The messages are written with upserts filtered on `{ _id, conversationId }`: an existing
 *    message keeps its sequence (`$setOnInsert`), and one that exists in another conversation
 *    makes the upsert insert a duplicate `_id`, which is the `IntegrityError`. A single message is
 *    one atomic document write; a larger batch runs in a transaction when the deployment has them.
 * 3. An insert whose sequence is already taken in its conversation fails on the unique
 *    `{ conversationId, sequence }` index; the batch then reserves new blocks and is written again
 *    (see {@link writeAttempt}).
 * 4. On a definite failure that wrote nothing, the activity moved in step 1 is taken back; after
 *    a written batch that collided, the activity is checked against the newest stored message.
 */
export async function writeMessages(ctx: MongoContext, messages: Message[]): Promise<void> {
  // Every document is built (and its size checked) before the first round trip.
  const bodies = messages.map((m) => {
    const fields = messageFields(m);
    assertMessageFits(m, fields, ctx.maxDocumentBytes);
    return fields;
  });
  const groups = groupByConversation(messages);
  if (!ctx.transactions && messages.length > 1) await assertNoneMoves(ctx, messages);
  const reservations: Reservation[] = [];
  // A failed bulk write without a transaction may have stored part of the batch; the activity
  // moved for those messages must then stay.
  let maybePartial = false;
  let conflict: unknown = null;
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
      maybePartial ||= !ctx.transactions && messages.length > 1;
      try {
        await writeAttempt(ctx, messages, bodies, blocks);
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
}

/** Reserves a block in each conversation of the batch, adding the reservations to `made`. */
async function reserveAll(
  ctx: MongoContext,
  groups: Map<string, Group>,
  made: Reservation[],
): Promise<Reservation[]> {
  const blocks: Reservation[] = [];
  for (const [conversationId, group] of groups) {
    const r = await reserveSequences(ctx, conversationId, group.count, group.maxTimestamp);
    if (!r) {
      throw new IntegrityError(`conversation ${JSON.stringify(conversationId)} does not exist`);
    }
    carryUndo(made, r);
    made.push(r);
    blocks.push(r);
  }
  return blocks;
}

/**
 * Writes the whole batch with sequences from `blocks`, in array order per conversation.
 *
 * After a sequence collision the caller runs this again with new, greater blocks, for the whole
 * batch: with a transaction nothing of the failed attempt was stored; without one, an ordered bulk
 * write stored the messages before the colliding one, and their upserts now only update (an
 * existing message keeps its sequence), so they keep their numbers from the earlier block and
 * the rest take numbers after it. Array order holds either way.
 */
async function writeAttempt(
  ctx: MongoContext,
  messages: Message[],
  bodies: MessageBody[],
  blocks: Reservation[],
): Promise<void> {
  const next = new Map(blocks.map((r) => [r.conversationId, r.firstSequence]));
  const ops = messages.map((m, i) => {
    const sequence = next.get(m.conversationId)!;
    next.set(m.conversationId, sequence + 1);
    return upsert(m, bodies[i]!, sequence);
  });
  try {
    await write(ctx, ops).catch((error: unknown) => {
      // Two concurrent upserts of one new id both try to insert; the loser's duplicate `_id` is
      // legal, and a second attempt then updates.
      if (isDuplicateKey(error) && !isSequenceConflict(error)) return write(ctx, ops);
      throw error;
    });
  } catch (error) {
    if (!isDuplicateKey(error) || isSequenceConflict(error)) throw error;
    // A duplicate `_id` that persists: the id lives in another conversation.
    const which =
      messages.length === 1
        ? `message ${JSON.stringify(messages[0]!.id)}`
        : "a message of the batch";
    throw new IntegrityError(
      `${which} already exists in another conversation; an upsert cannot move it`,
      { cause: error },
    );
  }
}

interface Group {
  count: number;
  maxTimestamp: number;
}

function groupByConversation(messages: Message[]): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const m of messages) {
    const g = groups.get(m.conversationId);
    if (g) {
      g.count++;
      g.maxTimestamp = Math.max(g.maxTimestamp, m.timestamp);
    } else {
      groups.set(m.conversationId, { count: 1, maxTimestamp: m.timestamp });
    }
  }
  return groups;
}

type Upsert = AnyBulkWriteOperation<MessageDoc> & { updateOne: object };
type MessageBody = ReturnType<typeof messageFields>;

function upsert(m: Message, body: MessageBody, sequence: number): Upsert {
  return {
    updateOne: {
      filter: { _id: m.id, conversationId: m.conversationId },
      update: { $set: body, $setOnInsert: { sequence } },
      upsert: true,
    },
  };
}

async function write(ctx: MongoContext, ops: Upsert[]): Promise<void> {
  if (ops.length === 1) {
    const { filter, update } = ops[0]!.updateOne as { filter: object; update: object };
    await ctx.messages.updateOne(filter, update, { upsert: true });
  } else if (ctx.transactions) {
    await inTransaction(ctx, (session: ClientSession) =>
      ctx.messages.bulkWrite(ops, { session, ordered: true }),
    );
  } else {
    await ctx.messages.bulkWrite(ops, { ordered: true });
  }
}

/**
 * Without transactions a failing bulk write keeps what it wrote before the failure, so the
 * moving-message rule is checked before anything is written (one read). A concurrent writer can
 * still slip in between; see the README.
 */
async function assertNoneMoves(ctx: MongoContext, messages: Message[]): Promise<void> {
  const target = new Map(messages.map((m) => [m.id, m.conversationId]));
  const existing = await ctx.messages
    .find({ _id: { $in: [...target.keys()] } }, { projection: { _id: 1, conversationId: 1 } })
    .batchSize(messages.length)
    .toArray();
  const moved = existing.find((doc) => doc.conversationId !== target.get(doc._id));
  if (moved) {
    throw new IntegrityError(
      `message ${JSON.stringify(moved._id)} belongs to conversation ${JSON.stringify(moved.conversationId)}; an upsert cannot move it`,
    );
  }
}
