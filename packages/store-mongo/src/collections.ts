import type { ClientSession, Collection, Db, IndexDescription, MongoClient } from "mongodb";
import type { CheckpointDoc, CheckpointValueDoc, CheckpointWriteDoc } from "./checkpoint-docs.js";
import type { ConversationDoc, MessageDoc, TurnTraceDoc } from "./documents.js";
import { backfillEmbeddingQueue, PENDING_INDEX, predatesEmbeddingQueue } from "./queue-backfill.js";
import { runTransaction, type TransactionOptions } from "./transaction-loop.js";

/** Collection names. */
export const COLLECTIONS = {
  conversations: "conversations",
  messages: "messages",
  turnTraces: "turn_traces",
  checkpoints: "checkpoints",
  checkpointValues: "checkpoint_values",
  checkpointWrites: "checkpoint_writes",
} as const;

/** The unique index on `{ conversationId, sequence }` of the messages collection. */
export const SEQUENCE_INDEX = "messages_conversation_sequence";

/** The partial filter of the embedding queue's indexes: messages that carry a `pendingKey`. */
const PENDING = { pendingKey: { $exists: true } };

/**
 * The indexes created (idempotently) by `initialize`, by collection. Names are fixed so that
 * operators can recognise them; an existing index with the same name and other keys or options
 * makes `initialize` fail rather than silently leaving the wrong one.
 */
export const INDEXES: { [K in keyof typeof COLLECTIONS]: IndexDescription[] } = {
  conversations: [
    // getConversationsByUserId: equality on userId, then the list order.
    { name: "conversations_user_activity", key: { userId: 1, lastActivityAt: -1, idKey: 1 } },
    // listConversations({ userId }) and deleteUserData: a user's conversations by id.
    { name: "conversations_user_id", key: { userId: 1, idKey: 1 } },
    // listConversations(): every conversation by id.
    { name: "conversations_id", key: { idKey: 1 } },
    // listConversations({ tenantId }) and forTenant(…) lists without a user: a tenant's by id.
    { name: "conversations_tenant_id", key: { tenantId: 1, idKey: 1 } },
    // Checkpoint reads join a checkpoint to the conversation incarnation it was written for.
    { name: "conversations_incarnation", key: { incarnation: 1 } },
    // purgeDeleted: the soft-deleted ones only (partial, as small as what awaits purging).
    {
      name: "conversations_deleted",
      key: { deletedAt: 1 },
      partialFilterExpression: { deletedAt: { $type: "number" } },
    },
  ],
  messages: [
    // Transcript, context window and cascade delete: one conversation in (timestamp, sequence) order.
    {
      name: "messages_conversation_order",
      key: { conversationId: 1, timestamp: 1, sequence: 1 },
    },
    // Sequence numbers are unique per conversation even if the server hands one block of numbers
    // to two writers; the loser's insert fails here and it retries with a new block.
    { name: SEQUENCE_INDEX, key: { conversationId: 1, sequence: 1 }, unique: true },
    // Moderation: a user's flagged messages, newest first. Partial, so it stays as small as the
    // number of flagged messages.
    {
      name: "messages_flagged",
      key: { userId: 1, timestamp: -1 },
      partialFilterExpression: { isFlagged: true },
    },
    // The embedding queue (listPendingEmbeddings): only pending messages carry `pendingKey`, so
    // these indexes are as small as the queue; by id, and by id within a user or a tenant.
    { name: PENDING_INDEX, key: { pendingKey: 1 }, partialFilterExpression: PENDING },
    {
      name: "messages_pending_user",
      key: { userId: 1, pendingKey: 1 },
      partialFilterExpression: PENDING,
    },
    {
      name: "messages_pending_tenant",
      key: { tenantId: 1, pendingKey: 1 },
      partialFilterExpression: PENDING,
    },
    // purgeDeleted: soft-deleted messages only.
    {
      name: "messages_deleted",
      key: { deletedAt: 1 },
      partialFilterExpression: { deletedAt: { $type: "number" } },
    },
  ],
  turnTraces: [
    // One trace per message, and getTurnTraceByMessageId.
    { name: "turn_traces_message", key: { messageId: 1 }, unique: true },
    // getTurnTracesByAgentId / queryTurnTraces({ agentId }) and summarizeUsage({ agentId }).
    { name: "turn_traces_agent_time", key: { agentId: 1, timestamp: -1, idKey: -1 } },
    // Cascade delete and queryTurnTraces({ conversationId }).
    { name: "turn_traces_conversation_time", key: { conversationId: 1, timestamp: -1, idKey: -1 } },
    // queryTurnTraces({ userId }) and summarizeUsage({ userId }).
    { name: "turn_traces_user_time", key: { userId: 1, timestamp: -1, idKey: -1 } },
    // queryTurnTraces({ tenantId }) and summarizeUsage({ tenantId }): forTenant(…) analytics.
    { name: "turn_traces_tenant_time", key: { tenantId: 1, timestamp: -1, idKey: -1 } },
    // purgeDeleted: soft-deleted traces only.
    {
      name: "turn_traces_deleted",
      key: { deletedAt: 1 },
      partialFilterExpression: { deletedAt: { $type: "number" } },
    },
    // queryTurnTraces without agent, conversation or user; summarizeUsage over every agent.
    { name: "turn_traces_time", key: { timestamp: -1, idKey: -1 } },
  ],
  checkpoints: [
    // getCheckpoint (the latest is the first) and listCheckpoints of one thread, newest first.
    {
      name: "checkpoints_thread",
      key: { conversationId: 1, namespaceKey: 1, idKey: -1 },
    },
    // listCheckpoints of one user's or tenant's threads, and of every thread, newest first.
    { name: "checkpoints_user", key: { userId: 1, idKey: -1, conversationKey: -1 } },
    { name: "checkpoints_tenant", key: { tenantId: 1, idKey: -1, conversationKey: -1 } },
    { name: "checkpoints_order", key: { idKey: -1, conversationKey: -1, namespaceKey: -1 } },
  ],
  // Deleted with their thread.
  checkpointValues: [{ name: "checkpoint_values_thread", key: { conversationId: 1 } }],
  checkpointWrites: [
    // A checkpoint's writes, joined by `$lookup`.
    { name: "checkpoint_writes_checkpoint", key: { checkpoint: 1 } },
    { name: "checkpoint_writes_thread", key: { conversationId: 1 } },
  ],
};

/** Everything an operation needs: the client, the collections and what the deployment offers. */
export interface MongoContext {
  readonly client: MongoClient;
  readonly db: Db;
  readonly conversations: Collection<ConversationDoc>;
  readonly messages: Collection<MessageDoc>;
  readonly traces: Collection<TurnTraceDoc>;
  readonly checkpoints: Collection<CheckpointDoc>;
  readonly checkpointValues: Collection<CheckpointValueDoc>;
  readonly checkpointWrites: Collection<CheckpointWriteDoc>;
  /** Multi-document transactions are available (replica set or sharded cluster). */
  readonly transactions: boolean;
  /** The largest document the server stores (`maxBsonObjectSize`, 16 MiB on MongoDB). */
  readonly maxDocumentBytes: number;
}

/** What the server said about itself in `hello`, as far as the store needs it. */
export interface ServerFacts {
  transactions: boolean;
  maxDocumentBytes: number;
}

/** Builds the context for database `db` of `client`. */
export function mongoContext(client: MongoClient, db: Db, facts: ServerFacts): MongoContext {
  return {
    client,
    db,
    conversations: db.collection<ConversationDoc>(COLLECTIONS.conversations),
    messages: db.collection<MessageDoc>(COLLECTIONS.messages),
    traces: db.collection<TurnTraceDoc>(COLLECTIONS.turnTraces),
    checkpoints: db.collection<CheckpointDoc>(COLLECTIONS.checkpoints),
    checkpointValues: db.collection<CheckpointValueDoc>(COLLECTIONS.checkpointValues),
    checkpointWrites: db.collection<CheckpointWriteDoc>(COLLECTIONS.checkpointWrites),
    ...facts,
  };
}

/**
 * Creates the collections' indexes; a no-op when they already exist with the same definition. A
 * store written before the embedding queue existed first has its unembedded messages queued
 * (before the queue's index exists, so an interrupted upgrade is finished by the next open).
 */
export async function ensureIndexes(db: Db): Promise<void> {
  if (await predatesEmbeddingQueue(db)) await backfillEmbeddingQueue(db);
  await Promise.all(
    (Object.keys(COLLECTIONS) as (keyof typeof COLLECTIONS)[]).map((k) =>
      db.collection(COLLECTIONS[k]).createIndexes(INDEXES[k]),
    ),
  );
}

/**
 * Runs `work` in a transaction and resolves to its result; a transient conflict runs it again,
 * a bounded number of times with backoff (see `runTransaction`). Only call when
 * `ctx.transactions`.
 */
export function inTransaction<T>(
  ctx: MongoContext,
  work: (session: ClientSession) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  return runTransaction(ctx.client, work, options);
}

/**
 * Runs `work` in a transaction when the deployment has them, else as it is (each of its writes
 * then commits on its own: order them so that every intermediate state is a legal one).
 */
export function atomically<T>(
  ctx: MongoContext,
  work: (session: ClientSession | undefined) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  return ctx.transactions ? inTransaction(ctx, work, options) : work(undefined);
}
