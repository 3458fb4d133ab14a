import { type ConversationRecord, StorageError, type TurnTrace } from "@message-store/core";
import type { RequestOf } from "@message-store/core/adapter";
import type { ClientSession } from "mongodb";
import { checkpointDoc, type ThreadOwner, valueDocs, writeDocs } from "./checkpoint-docs.js";
import { inTransaction, type MongoContext } from "./collections.js";
import { deleteThreadCheckpoints } from "./delete-checkpoints.js";
import { assertConversationFits } from "./document-size.js";
import { type ConversationDoc, conversationFields, newIncarnation } from "./documents.js";
import { isDuplicateKey } from "./errors.js";
import { confirmLiveMessages } from "./live-confirmation.js";
import { isWriteConflict } from "./transaction-loop.js";
import { attemptSession, Contended, checkConversation, writeSession } from "./write-session.js";
import { attemptTraces, Collision, collisionError, writeTraces } from "./write-traces.js";

/*
 * The checkpoint writes. With transactions a put runs in one: the conversation, the messages (as
 * `storeSessionMessages` writes them), the traces, the channel values and the checkpoint commit
 * together, and an attempt that lost a race to a concurrent writer starts over. Without them
 * (standalone server) the same writes run in that order, each committing on its own, so a reader
 * never sees a checkpoint before its values; a put refused at a trace keeps its messages (as
 * `atomicTraceBatches`, which such a deployment does not declare, allows). A put racing the
 * conversation's delete may then land after it: its documents carry the incarnation they were
 * written for, which no later conversation with that id has, so they are never read, and the put
 * deletes them once it sees the incarnation gone.
 */

type Options = { session?: ClientSession };

/** Attempts of one write that only a concurrent writer can make fail. */
const MAX_ATTEMPTS = 100;

/**
 * The thread's conversation: created from `record` when missing, else checked (its owner the
 * writer's, live). Resolves to its owners and incarnation, which every checkpoint document
 * written for it carries. The first checkpoint write of a thread marks its conversation
 * (`hasCheckpoints`, which the deletes read; and an incarnation, for a document inserted without
 * one) with an update matching the incarnation read. Throws {@link Contended} when the
 * conversation was created, or deleted and created again, since the read.
 */
async function ensureThread(
  ctx: MongoContext,
  o: Options,
  record: ConversationRecord,
): Promise<ThreadOwner> {
  const conv = await ctx.conversations.findOne(
    { _id: record.id },
    {
      ...o,
      projection: { userId: 1, tenantId: 1, deletedAt: 1, hasCheckpoints: 1, incarnation: 1 },
    },
  );
  if (conv) {
    checkConversation(conv as ConversationDoc, record);
    const owner = { userId: conv.userId, tenantId: conv.tenantId ?? null };
    if (conv.hasCheckpoints && conv.incarnation) return { ...owner, incarnation: conv.incarnation };
    const incarnation = conv.incarnation ?? newIncarnation();
    const { matchedCount } = await ctx.conversations.updateOne(
      { _id: record.id, incarnation: conv.incarnation ?? { $exists: false } },
      { $set: { hasCheckpoints: true, incarnation } },
      o,
    );
    if (matchedCount === 0) throw new Contended();
    return { ...owner, incarnation };
  }
  const doc: ConversationDoc = {
    _id: record.id,
    ...conversationFields(record),
    lastMessageAt: null,
    lastActivityAt: record.updatedAt,
    lastSequence: 0,
    hasCheckpoints: true,
    incarnation: newIncarnation(),
  };
  try {
    await ctx.conversations.insertOne(doc, o);
  } catch (error) {
    if (isDuplicateKey(error)) throw new Contended();
    throw error;
  }
  return { userId: record.userId, tenantId: record.tenantId, incarnation: doc.incarnation! };
}

/**
 * After a checkpoint write committed: when the incarnation written for is gone (the conversation
 * was deleted since `ensureThread` read it: without transactions, or on a server whose
 * transactions miss the conflict), deletes what was written for it. No reader ever saw those
 * documents (reads join them on the incarnation); this only frees them (see `cascade.ts` for
 * why the put or the delete always sweeps them).
 */
async function sweepIfDeleted(ctx: MongoContext, id: string, owner: ThreadOwner): Promise<void> {
  const live = await ctx.conversations.findOne(
    { _id: id, incarnation: owner.incarnation },
    { projection: { _id: 1 } },
  );
  if (!live) {
    await deleteThreadCheckpoints(ctx, { conversationId: id, incarnation: owner.incarnation }, {});
  }
}

/** The channel values (a stored version is kept), then the checkpoint (replaced). */
async function writeCheckpoint(
  ctx: MongoContext,
  o: Options,
  request: RequestOf<"putCheckpoint">,
  owner: ThreadOwner,
): Promise<void> {
  const values = valueDocs(request.checkpoint, owner);
  if (values.length > 0) {
    const ops = values.map((doc) => ({
      updateOne: { filter: { _id: doc._id }, update: { $setOnInsert: doc }, upsert: true },
    }));
    await ctx.checkpointValues.bulkWrite(ops, { ...o, ordered: false });
  }
  const doc = checkpointDoc(request.checkpoint, owner);
  await ctx.checkpoints.replaceOne({ _id: doc._id }, doc, { ...o, upsert: true });
}

/**
 * Runs `attempt` again while it loses to a concurrent writer (see `writeSession`): LangGraph
 * writes a task's results while the put of their checkpoint may still run, so the first two
 * writes of a thread often race to create its conversation.
 */
async function retrying<T>(attempt: () => Promise<T>, what: string): Promise<T> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof Contended) && !isWriteConflict(error)) throw error;
    }
  }
  throw new StorageError(`${what} lost to concurrent writers ${MAX_ATTEMPTS} times`);
}

export async function putCheckpoint(
  ctx: MongoContext,
  request: RequestOf<"putCheckpoint">,
): Promise<void> {
  const { conversation, messages, traces, now } = request;
  assertConversationFits(conversation.id, conversationFields(conversation), ctx.maxDocumentBytes);
  const what = `the put of checkpoint ${JSON.stringify(request.checkpoint.id)}`;
  if (!ctx.transactions) {
    const owner = await retrying(async () => {
      const owner = await ensureThread(ctx, {}, conversation);
      if (messages.length > 0) await writeSession(ctx, { conversation, messages, now });
      if (traces.length > 0) await writeTraces(ctx, traces);
      await writeCheckpoint(ctx, {}, request, owner);
      return owner;
    }, what);
    return sweepIfDeleted(ctx, conversation.id, owner);
  }
  let planned: TurnTrace[] = [];
  const { owner, turns } = await retrying(async () => {
    try {
      return await inTransaction(ctx, async (session) => {
        const owner = await ensureThread(ctx, { session }, conversation);
        const turns =
          messages.length > 0
            ? await attemptSession(ctx, session, { conversation, messages, now })
            : null;
        if (traces.length > 0) await attemptTraces(ctx, session, traces, (t) => (planned = t));
        await writeCheckpoint(ctx, { session }, request, owner);
        return { owner, turns };
      });
    } catch (error) {
      if (!(error instanceof Collision)) throw error;
      throw (await collisionError(ctx, planned, error.cause)) ?? new Contended();
    }
  }, what);
  // A conversation's soft delete is no transaction: new turns confirm it live, as a session write's.
  if (turns?.fresh) await confirmLiveMessages(ctx, turns.messages);
  await sweepIfDeleted(ctx, conversation.id, owner);
}

/** A task's writes: one with a negative `idx` replaces the stored one, another keeps it. */
export async function putCheckpointWrites(
  ctx: MongoContext,
  request: RequestOf<"putCheckpointWrites">,
): Promise<void> {
  const { conversation, writes } = request;
  const what = `the writes of task ${JSON.stringify(writes.taskId)}`;
  const attempt = async (o: Options) => {
    const owner = await ensureThread(ctx, o, conversation);
    const ops = writeDocs(writes, owner).map((doc) =>
      doc.idx < 0
        ? { replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } }
        : { updateOne: { filter: { _id: doc._id }, update: { $setOnInsert: doc }, upsert: true } },
    );
    await ctx.checkpointWrites.bulkWrite(ops, { ...o, ordered: true });
    return owner;
  };
  const owner = await retrying(
    () => (ctx.transactions ? inTransaction(ctx, (session) => attempt({ session })) : attempt({})),
    what,
  );
  await sweepIfDeleted(ctx, conversation.id, owner);
}
