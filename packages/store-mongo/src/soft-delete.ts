import { type DeletedCounts, IntegrityError, type Scope, StorageError } from "@message-store/core";
import type { ClientSession, Filter } from "mongodb";
import { atomically, type MongoContext } from "./collections.js";
import { deleteThreadCheckpoints } from "./delete-checkpoints.js";
import type { MessageDoc, TurnTraceDoc } from "./documents.js";
import { confirmLive } from "./live-confirmation.js";
import { inScope } from "./queries.js";

/*
 * Soft delete, restore and purge. Each runs in one transaction when the deployment has them,
 * except a conversation's soft delete, whose writes commit one by one everywhere (see there).
 * Each one's check is a condition of its first write (the conversation's, or for a message the
 * message's), so two of them on one document conflict in the server and one is retried: a
 * snapshot read cannot let a write slip between the check and the change. Without transactions
 * the parent is written first: a writer that comes after it is refused. A live write whose
 * messages land after its check confirms the conversation afterwards (`live-confirmation.ts`),
 * and a message's own soft delete announces its stamp on the conversation first (`stampFloor`),
 * so neither can slip past a conversation's soft delete. Every filter carries the scope
 * (`inScope`; a record carries its conversation's owners), so a record outside it is not found.
 */

/** Soft-deleted: the condition of the `*_deleted` partial indexes (the driver's types lack the `number` alias). */
const DELETED = { deletedAt: { $type: "number" } } as unknown as { deletedAt: { $ne: null } };
const UNLIMITED = 1_000_000;
const opts = (session: ClientSession | undefined) => (session ? { session } : {});

/** The greatest `deletedAt` among the documents matching `filter`, or `null`. */
async function newestStamp(
  ctx: MongoContext,
  collection: "messages" | "traces",
  filter: Filter<MessageDoc & TurnTraceDoc>,
  session: ClientSession | undefined,
): Promise<number | null> {
  const [doc] = await (ctx[collection] as MongoContext["messages"])
    .find({ ...filter, ...DELETED } as Filter<MessageDoc>, {
      ...opts(session),
      sort: { deletedAt: -1 },
      limit: 1,
      projection: { deletedAt: 1 },
    })
    .toArray();
  return doc?.deletedAt ?? null;
}

/**
 * Stamps the live conversation and its live messages and traces with `max(now, 1 + the newest
 * stamp among its records, 1 + its stampFloor)`, so a restore tells them from records deleted
 * before. A message's own soft delete announces its stamp in the conversation's `stampFloor`
 * before stamping the message (see {@link softDeleteMessage}), and the stamp is claimed with an
 * update filtered on the floor this attempt read: a message soft delete that announced since then
 * makes the claim match nothing, and the attempt starts over above it. So the two stamps never
 * collide, as the newest stamp read before the claim alone could not ensure (the message's stamp
 * can land between that read and the claim).
 */
export async function softDeleteConversation(
  ctx: MongoContext,
  id: string,
  scope: Scope,
  now: number,
): Promise<boolean> {
  const owners = inScope(scope);
  // On every deployment its writes commit one by one, conversation first: the guarantee against
  // a racing live write rests on single-document claims (the stamp above, and the writer's
  // confirmation, `live-confirmation.ts`), which hold on any server, not on snapshot isolation
  // between this and the writer (a snapshot taken before a message landed would miss it).
  const session = undefined;
  {
    const o = opts(session);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const conv = await ctx.conversations.findOne(
        { _id: id, ...owners, deletedAt: null },
        { ...o, projection: { stampFloor: 1 } },
      );
      if (!conv) return false;
      const floor = conv.stampFloor ?? null;
      let stamp = floor === null ? now : Math.max(now, floor + 1);
      for (const collection of ["messages", "traces"] as const) {
        const newest = await newestStamp(
          ctx,
          collection,
          { conversationId: id, ...owners },
          session,
        );
        if (newest !== null && newest >= stamp) stamp = newest + 1;
      }
      const set = { $set: { deletedAt: stamp } };
      const { matchedCount } = await ctx.conversations.updateOne(
        { _id: id, ...owners, deletedAt: null, stampFloor: floor },
        set,
        o,
      );
      if (matchedCount === 0) continue;
      await ctx.messages.updateMany({ conversationId: id, deletedAt: null }, set, o);
      await ctx.traces.updateMany({ conversationId: id, deletedAt: null }, set, o);
      return true;
    }
    throw new StorageError(
      `conversation ${JSON.stringify(id)}: a message of it was soft-deleted during every one of ${MAX_ATTEMPTS} attempts to soft-delete it`,
    );
  }
}

const MAX_ATTEMPTS = 100;

/** Clears the conversation's stamp and that of its records carrying the same one. */
export function restoreConversation(ctx: MongoContext, id: string, scope: Scope): Promise<boolean> {
  return atomically(ctx, async (session) => {
    const o = opts(session);
    const before = await ctx.conversations.findOneAndUpdate(
      { _id: id, ...inScope(scope), ...DELETED },
      { $set: { deletedAt: null } },
      { ...o, returnDocument: "before", projection: { deletedAt: 1 } },
    );
    if (!before) return false;
    const clear = { $set: { deletedAt: null } };
    const stamped = { conversationId: id, deletedAt: before.deletedAt };
    await ctx.messages.updateMany(stamped, clear, o);
    await ctx.traces.updateMany(stamped, clear, o);
    return true;
  });
}

/**
 * Stamps the live message and its trace. The stamp is first announced on the live conversation
 * (`stampFloor`, raised to it), so that a soft delete of the conversation stamps above it (see
 * {@link softDeleteConversation}); a conversation soft-deleted before that stamps the message
 * itself, and this call finds it deleted (false).
 */
export function softDeleteMessage(
  ctx: MongoContext,
  id: string,
  scope: Scope,
  now: number,
): Promise<boolean> {
  return atomically(ctx, async (session) => {
    const o = opts(session);
    const live = { _id: id, ...inScope(scope), deletedAt: null };
    const m = await ctx.messages.findOne(live, { ...o, projection: { conversationId: 1 } });
    if (!m || !(await announceStamp(ctx, m.conversationId, now, session))) return false;
    const set = { $set: { deletedAt: now } };
    const { matchedCount } = await ctx.messages.updateOne(live, set, o);
    if (matchedCount === 0) return false;
    await ctx.traces.updateMany({ messageId: id, deletedAt: null }, set, o);
    return true;
  });
}

/** Raises the live conversation's `stampFloor` to `stamp`; false when it is not live. */
async function announceStamp(
  ctx: MongoContext,
  conversationId: string,
  stamp: number,
  session: ClientSession | undefined,
): Promise<boolean> {
  const o = opts(session);
  const raised = await ctx.conversations.updateOne(
    {
      _id: conversationId,
      deletedAt: null,
      $or: [{ stampFloor: null }, { stampFloor: { $lt: stamp } }],
    },
    { $set: { stampFloor: stamp } },
    o,
  );
  if (raised.matchedCount === 1) return true;
  // Not raised: the floor is already at or above the stamp, or the conversation is not live.
  const conv = await ctx.conversations.findOne(
    { _id: conversationId },
    { ...o, projection: { deletedAt: 1 } },
  );
  return conv !== null && (conv.deletedAt ?? null) === null;
}

/**
 * Clears the message's stamp and its trace's if deleted with it. The conversation must be live:
 * checked by an update of it (a sequence number is used up; gaps are harmless), so that a
 * concurrent soft delete of the conversation conflicts with this restore instead of missing it.
 * The restore then confirms the conversation like a message write (`confirmLive`): without a
 * transaction the check and the change are two writes, and the conversation's soft delete runs
 * outside any transaction on every deployment.
 */
export async function restoreMessage(
  ctx: MongoContext,
  id: string,
  scope: Scope,
): Promise<boolean> {
  const conversationId = await atomically(ctx, async (session) => {
    const o = opts(session);
    const m = await ctx.messages.findOne(
      { _id: id, ...inScope(scope), ...DELETED },
      { ...o, projection: { conversationId: 1, deletedAt: 1 } },
    );
    if (!m) return null;
    const live = await ctx.conversations.updateOne(
      { _id: m.conversationId, deletedAt: null },
      { $inc: { lastSequence: 1 } },
      o,
    );
    if (live.matchedCount === 0) {
      throw new IntegrityError(
        `message ${JSON.stringify(id)}: conversation ${JSON.stringify(m.conversationId)} is soft-deleted; restore the conversation`,
      );
    }
    const clear = { $set: { deletedAt: null } };
    const restored = await ctx.messages.updateOne({ _id: id, deletedAt: m.deletedAt }, clear, o);
    if (restored.matchedCount === 0) return null;
    await ctx.traces.updateMany({ messageId: id, deletedAt: m.deletedAt }, clear, o);
    return m.conversationId;
  });
  if (conversationId === null) return false;
  await confirmLive(ctx, conversationId, [id]);
  return true;
}

/**
 * Hard-deletes what was soft-deleted before `before` in `scope`: conversations with everything
 * in them, then messages with their traces, then traces; children before parents.
 */
export function purgeDeleted(
  ctx: MongoContext,
  before: number,
  scope: Scope,
): Promise<DeletedCounts> {
  return atomically(ctx, async (session) => {
    const o = opts(session);
    const where = {
      deletedAt: { ...DELETED.deletedAt, $lt: before },
      ...inScope(scope),
    } as Filter<MessageDoc>;
    const ids = (docs: { _id: string }[]) => docs.map((d) => d._id);
    const find = { ...o, projection: { _id: 1 }, batchSize: UNLIMITED };
    const purged = await ctx.conversations
      .find(where as object, { ...find, projection: { _id: 1, hasCheckpoints: 1 } })
      .toArray();
    const convs = ids(purged);
    const threads = ids(purged.filter((c) => c.hasCheckpoints));
    const messages = ids(
      await ctx.messages.find({ ...where, conversationId: { $nin: convs } }, find).toArray(),
    );
    if (threads.length > 0)
      await deleteThreadCheckpoints(ctx, { conversationId: { $in: threads } }, o);
    const inConvs = { conversationId: { $in: convs } };
    const ofMessages = { messageId: { $in: messages } };
    const traces = await ctx.traces.deleteMany(
      { $or: [inConvs, ofMessages, where as Filter<TurnTraceDoc>] },
      o,
    );
    const removed = await ctx.messages.deleteMany(
      { $or: [inConvs, { _id: { $in: messages } }] },
      o,
    );
    const conversations = await ctx.conversations.deleteMany({ _id: { $in: convs } }, o);
    return {
      conversations: conversations.deletedCount,
      messages: removed.deletedCount,
      turnTraces: traces.deletedCount,
    };
  });
}
