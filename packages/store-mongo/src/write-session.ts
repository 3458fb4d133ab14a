import { type ConversationRecord, type Message, StorageError } from "@message-store/core";
import { checkSessionTimestamps } from "@message-store/core/adapter";
import type { ClientSession } from "mongodb";
import { atomically, type MongoContext } from "./collections.js";
import { assertConversationFits, assertMessageFits } from "./document-size.js";
import {
  type ConversationDoc,
  conversationFields,
  messageFields,
  newIncarnation,
} from "./documents.js";
import { isDuplicateKey } from "./errors.js";
import { confirmLiveMessages } from "./live-confirmation.js";
import { type MessageUpsert, upsertMessage } from "./message-ops.js";
import {
  deletedConversation,
  isStale,
  otherOwner,
  type StoredMessage,
  storedRule,
} from "./message-rules.js";

/**
 * `storeSessionMessages`: creates the conversation if missing, chooses the timestamps and writes
 * the messages, so that concurrent calls on one session never interleave and a retry of the same
 * turn ids keeps their stored timestamps and sequence.
 *
 * One attempt reads the conversation and the stored messages with the batch's ids, decides
 * everything from them (ownership, soft delete, which messages exist, `start = max(now,
 * lastActivityAt + 1)`, the timestamps `start + i` and a block of sequence numbers for the new
 * ones), then *claims* the conversation with one single-document write that only matches the
 * state it read: an `updateOne` filtered on `lastSequence`, `lastActivityAt`, `lastMessageAt`,
 * the owners and `deletedAt: null`, setting `lastSequence += k` and the activity to the newest new
 * timestamp (or, for a missing conversation, an `insertOne` of it with that state). Only then are
 * the messages upserted, with `timestamp` and `sequence` in `$setOnInsert`, so a message that
 * exists keeps both. If the claim matches nothing, another writer changed the conversation since
 * the read: the attempt starts over from a fresh read.
 *
 * Why this is correct on MongoDB 6+:
 * - Standalone (no transactions): a single-document update is atomic, so of two calls that read
 *   the same conversation state exactly one claim matches. Every write that moves a
 *   conversation's activity or sequence counter (a session claim, a message batch's reservation,
 *   a conversation upsert, a soft delete) changes a field the claim filters on, so each
 *   successful claim starts after everything claimed before it: its timestamps
 *   `[start, start + n)` lie above every earlier session's, and its sequence block above every
 *   earlier one. The order of the transcript, `(timestamp, sequence)`, is fixed by the claim,
 *   whatever order the messages' upserts then land in, so each call's messages are contiguous.
 *   A retry reads its ids as stored in the conversation and keeps their timestamps and sequence
 *   (claiming nothing when all are stored). Without transactions the upserts of a batch land one
 *   by one (as `storeMessages`' do), and a claim whose upserts then fail (a race with a writer of
 *   the same ids, a lost connection) keeps the activity it set: never older than the truth. A
 *   soft delete of the conversation can run between the claim and the upserts, so the call then
 *   confirms the conversation live (`confirmLive`). So does it on a replica set, after the
 *   commit: a conversation's soft delete is not a transaction there either.
 * - Replica set: the attempt runs in one transaction, so the conversation, the claim and the
 *   messages commit together or not at all. Its reads come from the transaction's snapshot, and
 *   the claim writes the conversation document: if another transaction wrote that document after
 *   the snapshot, or writes it before this one commits, MongoDB aborts one of them with a
 *   `WriteConflict` (a `TransientTransactionError`), which `withTransaction` retries from a new
 *   snapshot. So concurrent calls on one session run one after the other, each seeing the one
 *   before it, and a stored id read in the snapshot cannot be inserted by another writer before
 *   the commit without a conflict on that message.
 */
export async function writeSession(
  ctx: MongoContext,
  request: { conversation: ConversationRecord; messages: readonly Message[]; now: number },
): Promise<Message[]> {
  const { conversation, messages } = request;
  // Every document is checked before the first round trip (a shifted timestamp keeps its size).
  assertConversationFits(conversation.id, conversationFields(conversation), ctx.maxDocumentBytes);
  for (const m of messages) assertMessageFits(m, messageFields(m), ctx.maxDocumentBytes);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    try {
      // An attempt that committed reads its messages as stored and claims nothing: idempotent.
      const { messages: stored, fresh } = await atomically(
        ctx,
        (session) => attemptSession(ctx, session, request),
        { idempotent: true },
      );
      // Without a transaction the claim and the upserts are separate writes (see `confirmLive`);
      // with one, a soft delete (not transactional) may still have read before the commit.
      if (fresh) await confirmLiveMessages(ctx, stored);
      return stored;
    } catch (error) {
      if (!(error instanceof Contended)) throw error;
    }
  }
  throw new StorageError(
    `conversation ${JSON.stringify(conversation.id)} changed under every one of ${MAX_ATTEMPTS} attempts to store session messages`,
  );
}

/** Attempts of one session write before it gives up (each lost only to a concurrent writer). */
const MAX_ATTEMPTS = 100;

/** Another writer changed the conversation or stored one of the ids since the attempt's read. */
export class Contended extends Error {}

/** What an attempt reads of a stored message with one of the batch's ids. */
type Projected = StoredMessage & {
  _id: string;
  timestamp: number;
  sequence: number;
  originalContent: string;
  embedding: number[] | null | undefined;
};

/** The batch as it will be stored, and how many of its messages are new. */
interface Plan {
  messages: Message[];
  ops: MessageUpsert[];
  /** Indexes of the messages the attempt stores as new. */
  fresh: number[];
  newest: number | null;
}

/**
 * One attempt of {@link writeSession} (in `session`'s transaction when given); throws
 * {@link Contended} when it must start over. A checkpoint put runs it in its own transaction.
 */
export async function attemptSession(
  ctx: MongoContext,
  session: ClientSession | undefined,
  request: { conversation: ConversationRecord; messages: readonly Message[]; now: number },
): Promise<{ messages: Message[]; fresh: boolean }> {
  const { conversation, now } = request;
  const o: Options = session ? { session } : {};
  const conv = await ctx.conversations.findOne({ _id: conversation.id }, o);
  const stored = await ctx.messages
    .find(
      { _id: { $in: request.messages.map((m) => m.id) } },
      {
        ...o,
        projection: {
          conversationId: 1,
          userId: 1,
          tenantId: 1,
          deletedAt: 1,
          timestamp: 1,
          sequence: 1,
          originalContent: 1,
          embedding: 1,
        },
        batchSize: request.messages.length,
      },
    )
    .toArray();
  if (conv) checkConversation(conv, conversation);
  const activity = conv ? conv.lastActivityAt : now;
  const start = conv ? Math.max(now, activity + 1) : now;
  const plan = planBatch(
    request.messages,
    new Map((stored as Projected[]).map((d) => [d._id, d])),
    conv ? (conv.tenantId ?? null) : conversation.tenantId,
    start - now,
    (conv?.lastSequence ?? 0) + 1,
  );
  if (plan.newest !== null) checkSessionTimestamps(conversation.id, plan.newest, activity);
  await claim(ctx, o, conversation, conv, plan);
  return { messages: await write(ctx, o, plan), fresh: plan.fresh.length > 0 };
}

/** The ownership and soft-delete rules against the stored conversation. */
export function checkConversation(conv: ConversationDoc, record: ConversationRecord): void {
  const tenantOk = record.tenantId === null || (conv.tenantId ?? null) === record.tenantId;
  if (conv.userId !== record.userId || !tenantOk) throw otherOwner(record.id);
  if ((conv.deletedAt ?? null) !== null) throw deletedConversation(record.id);
}

/**
 * Each message as it will be stored: the tenant filled; a stored one (in this conversation, by
 * the rules) with its stored timestamp and sequence and a stale embedding cleared; a new one
 * shifted by `shift` with the next sequence number, in array order.
 */
function planBatch(
  input: readonly Message[],
  stored: Map<string, Projected>,
  tenantId: string | null,
  shift: number,
  firstSequence: number,
): Plan {
  const plan: Plan = { messages: [], ops: [], fresh: [], newest: null };
  let next = firstSequence;
  for (const [i, m] of input.entries()) {
    const filled = m.tenantId === tenantId ? m : { ...m, tenantId };
    const old = stored.get(m.id);
    let message: Message;
    let sequence: number;
    if (old) {
      const broken = storedRule(filled, old);
      if (broken) throw broken;
      message = { ...filled, timestamp: old.timestamp };
      if (isStale(message, old)) message.embedding = null;
      sequence = old.sequence;
    } else {
      message = { ...filled, timestamp: m.timestamp + shift };
      sequence = next++;
      plan.fresh.push(i);
      plan.newest = message.timestamp;
    }
    plan.messages.push(message);
    plan.ops.push(upsertMessage(message, sequence, true));
  }
  return plan;
}

type Options = { session?: ClientSession };

/**
 * Claims the conversation for the plan (see {@link writeSession}): creates it with the plan's
 * activity and sequence counter, or moves the stored ones on, only from the state that was read.
 * A plan without new messages claims nothing: it changes neither activity nor order.
 */
async function claim(
  ctx: MongoContext,
  o: Options,
  record: ConversationRecord,
  conv: ConversationDoc | null,
  plan: Plan,
): Promise<void> {
  const k = plan.fresh.length;
  const newest = plan.newest;
  if (!conv) {
    const doc: ConversationDoc = {
      _id: record.id,
      ...conversationFields(record),
      lastMessageAt: newest,
      lastActivityAt: Math.max(record.updatedAt, newest ?? record.updatedAt),
      lastSequence: k,
      incarnation: newIncarnation(),
    };
    try {
      await ctx.conversations.insertOne(doc, o);
    } catch (error) {
      // Created by a concurrent writer since the read: decide again against it.
      if (isDuplicateKey(error)) throw new Contended();
      throw error;
    }
    return;
  }
  if (k === 0 || newest === null) return;
  const { matchedCount } = await ctx.conversations.updateOne(
    {
      _id: conv._id,
      userId: conv.userId,
      tenantId: conv.tenantId ?? null,
      deletedAt: null,
      lastSequence: conv.lastSequence,
      lastActivityAt: conv.lastActivityAt,
      lastMessageAt: conv.lastMessageAt ?? null,
    },
    {
      $set: { lastSequence: conv.lastSequence + k, lastMessageAt: newest, lastActivityAt: newest },
    },
    o,
  );
  if (matchedCount === 0) throw new Contended();
}

/**
 * Upserts the plan's messages (in one transaction with the claim when there is one). A duplicate
 * key means another writer stored one of the ids (or took a sequence number) since the read: the
 * attempt starts over and decides against what is stored then. A message planned as new that
 * an upsert found stored (a concurrent writer of the same id, without transactions) kept its
 * stored timestamp: it is read back so the result is what is stored.
 */
async function write(ctx: MongoContext, o: Options, plan: Plan): Promise<Message[]> {
  let inserted: Set<number>;
  try {
    const [only] = plan.ops;
    if (plan.ops.length === 1 && only) {
      const { filter, update } = only.updateOne;
      const result = await ctx.messages.updateOne(filter, update, { ...o, upsert: true });
      inserted = new Set(result.upsertedCount === 1 ? [0] : []);
    } else {
      const result = await ctx.messages.bulkWrite(plan.ops, { ...o, ordered: true });
      inserted = new Set(Object.keys(result.upsertedIds).map(Number));
    }
  } catch (error) {
    if (isDuplicateKey(error)) throw new Contended();
    throw error;
  }
  const overtaken = plan.fresh.filter((i) => !inserted.has(i)).map((i) => plan.messages[i]!.id);
  if (overtaken.length === 0) return plan.messages;
  const docs = await ctx.messages
    .find({ _id: { $in: overtaken } }, { ...o, projection: { timestamp: 1 } })
    .toArray();
  const times = new Map(docs.map((d) => [d._id, d.timestamp]));
  return plan.messages.map((m) => {
    const timestamp = times.get(m.id);
    return timestamp === undefined ? m : { ...m, timestamp };
  });
}
