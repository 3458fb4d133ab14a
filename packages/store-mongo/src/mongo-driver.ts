import type {
  Conversation,
  DeletedCounts,
  Message,
  MessageStoreError,
  StoreCapabilities,
  StoredCheckpoint,
  TextSearchHit,
  TurnTrace,
  UsageBucket,
} from "@message-store/core";
import type { MessageStoreDriver, RequestOf, SequencedMessage } from "@message-store/core/adapter";
import type { Db, MongoClient } from "mongodb";
import { deleteConversationCascade, deleteMessageCascade, deleteUserCascade } from "./cascade.js";
import type { MongoContext } from "./collections.js";
import { ADAPTER } from "./config.js";
import { deleteCheckpoints } from "./delete-checkpoints.js";
import { toMessage } from "./documents.js";
import { listPendingEmbeddings, setEmbeddings } from "./embedding-queue.js";
import { fromDriverError } from "./errors.js";
import { withDeadline } from "./operation-deadline.js";
import { inScope } from "./queries.js";
import { listCheckpoints, readCheckpoint } from "./read-checkpoints.js";
import {
  readContext,
  readConversation,
  readConversationList,
  readConversationsByUser,
  readMessage,
  readTraceOfMessage,
  readTraces,
  readTranscript,
  readUsage,
} from "./reads.js";
import {
  purgeDeleted,
  restoreConversation,
  restoreMessage,
  softDeleteConversation,
  softDeleteMessage,
} from "./soft-delete.js";
import { searchConversations } from "./text-search.js";
import { upsertConversation } from "./upsert-conversation.js";
import { putCheckpoint, putCheckpointWrites } from "./write-checkpoints.js";
import { writeMessages } from "./write-messages.js";
import { writeSession } from "./write-session.js";
import { writeTraces } from "./write-traces.js";

/**
 * The MongoDB driver of message-store, on the official `mongodb` driver (6.x or 7.x); open a
 * store with `MongoMessageStore.open(config)` or `MessageStore.initialize({ storage: "mongodb",
 * … })`. The operations are documented on `MessageStoreDriver` in core.
 *
 * Collections `conversations`, `messages` and `turn_traces` hold one document per record with
 * `_id = id`. Every record carries its conversation's `userId` and `tenantId`, so a request's
 * scope is one more equality in the filter of each command it sends (see `inScope`). Soft delete,
 * tenants, text search and the embedding queue are offered; semantic search is not (embeddings
 * are stored and read back all the same). Trace batches are all or nothing where the deployment
 * has transactions (`atomicTraceBatches` is then declared).
 */
export class MongoDriver implements MessageStoreDriver {
  readonly name = ADAPTER;
  readonly capabilities: StoreCapabilities;
  readonly #ctx: MongoContext;
  readonly #ownsClient: boolean;
  readonly #timeoutMs: number;

  /** Use `MongoMessageStore.open`, which connects and creates the indexes first. */
  constructor(ctx: MongoContext, ownsClient: boolean, operationTimeoutMs: number) {
    this.#ctx = ctx;
    this.#ownsClient = ownsClient;
    this.#timeoutMs = operationTimeoutMs;
    this.capabilities = {
      semanticSearch: false,
      softDelete: true,
      tenants: true,
      embeddingQueue: true,
      textSearch: true,
      atomicTraceBatches: ctx.transactions,
      checkpoints: true,
    };
  }

  /** The client the store runs on (the caller's, when opened with `client`). */
  get client(): MongoClient {
    return this.#ctx.client;
  }

  /** The database holding the collections. */
  get db(): Db {
    return this.#ctx.db;
  }

  /**
   * Whether multi-document writes (batches, sessions, cascade deletes) run in transactions: true
   * on a replica set or sharded cluster, false on a standalone server (see the README for what
   * that changes).
   */
  get usesTransactions(): boolean {
    return this.#ctx.transactions;
  }

  /** Runs a read within `operation_timeout_ms` (see `withDeadline`). */
  #read<T>(operation: (ctx: MongoContext) => Promise<T>): Promise<T> {
    return withDeadline(operation(this.#ctx), this.#timeoutMs, false);
  }

  /** Runs a write within `operation_timeout_ms` (see `withDeadline`). */
  #write<T>(operation: (ctx: MongoContext) => Promise<T>): Promise<T> {
    return withDeadline(operation(this.#ctx), this.#timeoutMs, true);
  }

  storeConversation({ conversation }: RequestOf<"storeConversation">): Promise<Conversation> {
    return this.#write((ctx) => upsertConversation(ctx, conversation));
  }

  getConversation(r: RequestOf<"getConversation">): Promise<Conversation | null> {
    return this.#read((ctx) => readConversation(ctx, r.id, r.scope, r.includeDeleted));
  }

  getConversationsByUserId(r: RequestOf<"getConversationsByUserId">): Promise<Conversation[]> {
    return this.#read((ctx) => readConversationsByUser(ctx, r.scope, r.includeDeleted, r.page));
  }

  listConversations(r: RequestOf<"listConversations">): Promise<Conversation[]> {
    return this.#read((ctx) => readConversationList(ctx, r.scope, r.includeDeleted, r.page));
  }

  deleteConversation(r: RequestOf<"deleteConversation">): Promise<boolean> {
    return this.#write((ctx) => deleteConversationCascade(ctx, r.id, r.scope));
  }

  softDeleteConversation(r: RequestOf<"softDeleteConversation">): Promise<boolean> {
    return this.#write((ctx) => softDeleteConversation(ctx, r.id, r.scope, r.deletedAt));
  }

  restoreConversation(r: RequestOf<"restoreConversation">): Promise<boolean> {
    return this.#write((ctx) => restoreConversation(ctx, r.id, r.scope));
  }

  /** Records written through a view carry its owners, which the ownership rules hold to. */
  storeMessages({ messages }: RequestOf<"storeMessages">): Promise<Message[]> {
    return this.#write((ctx) => writeMessages(ctx, [...messages]));
  }

  storeSessionMessages(r: RequestOf<"storeSessionMessages">): Promise<Message[]> {
    return this.#write((ctx) => writeSession(ctx, r));
  }

  getMessage(r: RequestOf<"getMessage">): Promise<Message | null> {
    return this.#read((ctx) => readMessage(ctx, r.id, r.scope, r.includeDeleted));
  }

  flagMessage(r: RequestOf<"flagMessage">): Promise<Message | null> {
    return this.#write(async (ctx) => {
      const doc = await ctx.messages.findOneAndUpdate(
        { _id: r.id, ...inScope(r.scope), deletedAt: null },
        { $set: { isFlagged: r.flagged } },
        { returnDocument: "after" },
      );
      // The flag comes from the call, not the returned document: a server that returns an
      // outdated version under concurrency (jongodb) must not contradict the write just made.
      return doc ? toMessage({ ...doc, isFlagged: r.flagged }) : null;
    });
  }

  softDeleteMessage(r: RequestOf<"softDeleteMessage">): Promise<boolean> {
    return this.#write((ctx) => softDeleteMessage(ctx, r.id, r.scope, r.deletedAt));
  }

  restoreMessage(r: RequestOf<"restoreMessage">): Promise<boolean> {
    return this.#write((ctx) => restoreMessage(ctx, r.id, r.scope));
  }

  deleteMessage(r: RequestOf<"deleteMessage">): Promise<boolean> {
    return this.#write((ctx) => deleteMessageCascade(ctx, r.id, r.scope));
  }

  purgeDeleted(r: RequestOf<"purgeDeleted">): Promise<DeletedCounts> {
    return this.#write((ctx) => purgeDeleted(ctx, r.before, r.scope));
  }

  getMessagesByConversationId(
    r: RequestOf<"getMessagesByConversationId">,
  ): Promise<SequencedMessage[]> {
    return this.#read((ctx) =>
      readTranscript(ctx, r.conversationId, r.scope, r.includeDeleted, r.page),
    );
  }

  getImmediateContext(r: RequestOf<"getImmediateContext">): Promise<Message[]> {
    return this.#read((ctx) => readContext(ctx, r.conversationId, r.scope, r.n));
  }

  /** Records written through a view carry its owners, which the ownership rules hold to. */
  storeTurnTraces({ traces }: RequestOf<"storeTurnTraces">): Promise<TurnTrace[]> {
    return this.#write((ctx) => writeTraces(ctx, traces));
  }

  getTurnTraceByMessageId(r: RequestOf<"getTurnTraceByMessageId">): Promise<TurnTrace | null> {
    return this.#read((ctx) => readTraceOfMessage(ctx, r.id, r.scope, r.includeDeleted));
  }

  queryTurnTraces(r: RequestOf<"queryTurnTraces">): Promise<TurnTrace[]> {
    return this.#read((ctx) => readTraces(ctx, r.scope, r.filter, r.page));
  }

  /** Core's `summarizeTraces` over the window's traces (see `readUsage`). */
  summarizeUsage(r: RequestOf<"summarizeUsage">): Promise<UsageBucket[]> {
    return this.#read((ctx) => readUsage(ctx, r.scope, r.query));
  }

  deleteUserData(r: RequestOf<"deleteUserData">): Promise<DeletedCounts> {
    return this.#write((ctx) => deleteUserCascade(ctx, r.scope));
  }

  searchConversations(r: RequestOf<"searchConversations">): Promise<TextSearchHit[]> {
    return this.#read((ctx) => searchConversations(ctx, r.scope, r.filter, r.page));
  }

  listPendingEmbeddings(r: RequestOf<"listPendingEmbeddings">): Promise<Message[]> {
    return this.#read((ctx) => listPendingEmbeddings(ctx, r.scope, r.filter, r.page));
  }

  setEmbeddings(r: RequestOf<"setEmbeddings">): Promise<number> {
    return this.#write((ctx) => setEmbeddings(ctx, r.scope, r.updates));
  }

  putCheckpoint(r: RequestOf<"putCheckpoint">): Promise<void> {
    return this.#write((ctx) => putCheckpoint(ctx, r));
  }

  putCheckpointWrites(r: RequestOf<"putCheckpointWrites">): Promise<void> {
    return this.#write((ctx) => putCheckpointWrites(ctx, r));
  }

  getCheckpoint(r: RequestOf<"getCheckpoint">): Promise<StoredCheckpoint | null> {
    return this.#read((ctx) => readCheckpoint(ctx, r));
  }

  listCheckpoints(r: RequestOf<"listCheckpoints">): Promise<StoredCheckpoint[]> {
    return this.#read((ctx) => listCheckpoints(ctx, r));
  }

  deleteCheckpoints(r: RequestOf<"deleteCheckpoints">): Promise<boolean> {
    return this.#write((ctx) => deleteCheckpoints(ctx, r));
  }

  /** Closes the client the store created; a caller's client is left open. */
  async close(): Promise<void> {
    if (this.#ownsClient) await this.#ctx.client.close();
  }

  /**
   * Driver errors as core's (see `fromDriverError`). Anything else maps to nothing, and core's
   * default applies (a `StorageError` scrubbed of passwords): core falls back on `null`, which
   * the interface's return type does not admit yet.
   */
  mapError(error: unknown): MessageStoreError {
    return fromDriverError(error) as MessageStoreError;
  }
}
