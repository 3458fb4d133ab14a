import { IntegrityError, type Message } from "@message-store/core";
import type { AnyBulkWriteOperation, ClientSession } from "mongodb";
import { inTransaction, type MongoContext } from "./collections.js";
import { type MessageDoc, messageFields } from "./documents.js";
import { ADAPTER, isConnectionFailure, isDuplicateKey } from "./errors.js";
import { type Reservation, reserveSequences, undoActivity } from "./sequence-reservation.js";

/**
 * Upserts a batch of messages, all or nothing, with the integrity rules of the contract.
 *
 * 1. One update per distinct conversation reserves a block of sequence numbers (and proves the
 *    conversation exists); see {@link reserveSequences}.
 * 2. The messages are written with upserts filtered on `{ _id, conversationId }`: an existing
 *    message keeps its sequence (`$setOnInsert`), and one that exists in another conversation
 *    makes the upsert insert a duplicate `_id`, which is the `IntegrityError`. A single message is
 *    one atomic document write; a larger batch runs in a transaction when the deployment has them.
 * 3. On a definite failure the activity moved in step 1 is taken back.
 */
export async function writeMessages(ctx: MongoContext, messages: Message[]): Promise<void> {
  const groups = groupByConversation(messages);
  if (!ctx.transactions && messages.length > 1) await assertNoneMoves(ctx, messages);
  const reservations: Reservation[] = [];
  try {
    for (const [conversationId, group] of groups) {
      const r = await reserveSequences(ctx, conversationId, group.count, group.maxTimestamp);
      if (!r) {
        throw new IntegrityError(`conversation ${JSON.stringify(conversationId)} does not exist`, {
          adapter: ADAPTER,
        });
      }
      reservations.push(r);
    }
    const next = new Map(reservations.map((r) => [r.conversationId, r.firstSequence]));
    const ops = messages.map((m) => {
      const sequence = next.get(m.conversationId)!;
      next.set(m.conversationId, sequence + 1);
      return upsert(m, sequence);
    });
    await retryDuplicateOnce(() => write(ctx, ops)).catch((error: unknown) => {
      if (!isDuplicateKey(error)) throw error;
      const which =
        messages.length === 1
          ? `message ${JSON.stringify(messages[0]!.id)}`
          : "a message of the batch";
      throw new IntegrityError(
        `${which} already exists in another conversation; an upsert cannot move it`,
        { adapter: ADAPTER, cause: error },
      );
    });
  } catch (error) {
    if (!isConnectionFailure(error)) await undoActivity(ctx, reservations);
    throw error;
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

function upsert(m: Message, sequence: number): Upsert {
  return {
    updateOne: {
      filter: { _id: m.id, conversationId: m.conversationId },
      update: { $set: messageFields(m), $setOnInsert: { sequence } },
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
 * Two concurrent upserts of one new id both try to insert; the loser gets a duplicate key error
 * although its upsert is legal. A second attempt then updates. A duplicate that persists means
 * the id lives in another conversation.
 */
async function retryDuplicateOnce<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    return operation();
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
      { adapter: ADAPTER },
    );
  }
}
