import {
  type Conversation,
  type ConversationFilter,
  type ConversationRecord,
  type DeletedCounts,
  type EmbeddingUpdate,
  type Message,
  MessageStore,
  type MessageStoreError,
  type PendingEmbeddingsFilter,
  type Scope,
  type StoreCapabilities,
  type TextSearchFilter,
  type TextSearchHit,
  type TurnTrace,
  type TurnTraceFilter,
  type UsageBucket,
  type UsageQuery,
} from "@message-store/core";
import {
  type ConversationKey,
  type MessageKey,
  type PageRequest,
  parseConfig,
  type ReadRequest,
  type SequencedMessage,
  type StoreMessagesOptions,
  type TraceKey,
} from "@message-store/core/adapter";
import { deleteConversationCascade, deleteMessageCascade, deleteUserCascade } from "./cascade.js";
import type { MongoContext } from "./collections.js";
import { ADAPTER, MongoConfigSchema, type MongoStoreConfig } from "./config.js";
import { connectMongo } from "./connect-mongo.js";
import { toMessage } from "./documents.js";
import { listPendingEmbeddings, setEmbeddings } from "./embedding-queue.js";
import { fromDriverError } from "./errors.js";
import { withDeadline } from "./operation-deadline.js";
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
import { insertConversationIfMissing, upsertConversation } from "./upsert-conversation.js";
import { writeMessages } from "./write-messages.js";
import { writeTrace } from "./write-trace.js";

/**
 * The MongoDB message store, on the official `mongodb` driver (6.x or 7.x). Get one with
 * `MessageStore.initialize({ storage: "mongodb", uri, db })` (after `import "@message-store/mongodb"`)
 * or {@link MongoMessageStore.open}; the methods are documented on `MessageStoreApi` in core.
 *
 * Collections `conversations`, `messages` and `turn_traces` hold one document per record with
 * `_id = id`. Soft delete, tenants (with the ownership rules kept inside each write) and the
 * embedding queue are offered; semantic search is not (`capabilities.semanticSearch` is false):
 * message embeddings are stored and read back all the same.
 */
export class MongoMessageStore extends MessageStore {
  readonly adapterName = ADAPTER;
  override readonly capabilities: StoreCapabilities = {
    semanticSearch: false,
    softDelete: true,
    tenants: true,
    embeddingQueue: true,
    textSearch: true,
  };
  readonly #ctx: MongoContext;
  readonly #ownsClient: boolean;
  readonly #operationTimeoutMs: number;

  private constructor(ctx: MongoContext, ownsClient: boolean, operationTimeoutMs: number) {
    super();
    this.#ctx = ctx;
    this.#ownsClient = ownsClient;
    this.#operationTimeoutMs = operationTimeoutMs;
  }

  /**
   * Validates `config` ({@link MongoConfigSchema}; a `storage: "mongodb"` key is accepted and
   * ignored), connects, creates the indexes (idempotent) and resolves to a ready store. `config`
   * is `{ uri, db }` or `{ client, db }` (a `MongoClient` you own, left open by `close()`).
   * Throws `ConfigurationError` for a bad config (before any I/O) and `ConnectionError`
   * (password redacted) when no server answers within `server_selection_timeout_ms` (default 10 s).
   */
  static async open(
    config: MongoStoreConfig & { storage?: typeof ADAPTER },
  ): Promise<MongoMessageStore> {
    const resolved = parseConfig(MongoConfigSchema, config, ADAPTER);
    const { ctx, owned } = await connectMongo(resolved);
    return new MongoMessageStore(ctx, owned, resolved.operation_timeout_ms);
  }

  /**
   * Whether multi-document writes (batches, cascade deletes) run in transactions: true on a
   * replica set or sharded cluster, false on a standalone server (see the README for what that
   * changes).
   */
  get usesTransactions(): boolean {
    return this.#ctx.transactions;
  }

  /** Runs a read within `operation_timeout_ms` (see `withDeadline`). */
  #read<T>(operation: () => Promise<T>): Promise<T> {
    return withDeadline(operation(), this.#operationTimeoutMs, false);
  }

  /** Runs a write within `operation_timeout_ms` (see `withDeadline`). */
  #write<T>(operation: () => Promise<T>): Promise<T> {
    return withDeadline(operation(), this.#operationTimeoutMs, true);
  }

  protected _storeConversation(record: ConversationRecord): Promise<Conversation> {
    return this.#write(() => upsertConversation(this.#ctx, record));
  }

  protected _getConversation(id: string, options: ReadRequest): Promise<Conversation | null> {
    return this.#read(() => readConversation(this.#ctx, id, options.includeDeleted));
  }

  protected _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
    filter: ConversationFilter,
  ): Promise<Conversation[]> {
    return this.#read(() => readConversationsByUser(this.#ctx, userId, page, filter));
  }

  protected _listConversations(
    userId: string | null,
    page: PageRequest<string>,
    filter: ConversationFilter,
  ): Promise<Conversation[]> {
    return this.#read(() => readConversationList(this.#ctx, userId, page, filter));
  }

  protected _deleteConversation(id: string): Promise<boolean> {
    return this.#write(() => deleteConversationCascade(this.#ctx, id));
  }

  protected override _softDeleteConversation(id: string, deletedAt: number): Promise<boolean> {
    return this.#write(() => softDeleteConversation(this.#ctx, id, deletedAt));
  }

  protected override _restoreConversation(id: string): Promise<boolean> {
    return this.#write(() => restoreConversation(this.#ctx, id));
  }

  /**
   * The session's conversation, when missing, is created by a write of its own before the batch
   * (an insert that leaves an existing one alone); the batch's reservation then checks the
   * ownership rules against whichever conversation is there.
   */
  protected _storeMessages(messages: Message[], options: StoreMessagesOptions): Promise<Message[]> {
    return this.#write(async () => {
      if (options.ensureConversation) {
        await insertConversationIfMissing(this.#ctx, options.ensureConversation);
      }
      return writeMessages(this.#ctx, messages);
    });
  }

  protected override _softDeleteMessage(id: string, deletedAt: number): Promise<boolean> {
    return this.#write(() => softDeleteMessage(this.#ctx, id, deletedAt));
  }

  protected override _restoreMessage(id: string): Promise<boolean> {
    return this.#write(() => restoreMessage(this.#ctx, id));
  }

  protected override _purgeDeleted(before: number, scope: Scope): Promise<DeletedCounts> {
    return this.#write(() => purgeDeleted(this.#ctx, before, scope));
  }

  protected _deleteMessage(id: string): Promise<boolean> {
    return this.#write(() => deleteMessageCascade(this.#ctx, id));
  }

  protected _getMessage(id: string, options: ReadRequest): Promise<Message | null> {
    return this.#read(() => readMessage(this.#ctx, id, options.includeDeleted));
  }

  protected _flagMessage(id: string, flagged: boolean): Promise<Message | null> {
    return this.#write(async () => {
      const doc = await this.#ctx.messages.findOneAndUpdate(
        { _id: id, deletedAt: null },
        { $set: { isFlagged: flagged } },
        { returnDocument: "after" },
      );
      // The flag comes from the call, not the returned document: a server that returns an
      // outdated version under concurrency (jongodb) must not contradict the write just made.
      return doc ? toMessage({ ...doc, isFlagged: flagged }) : null;
    });
  }

  protected _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
    options: ReadRequest,
  ): Promise<SequencedMessage[]> {
    return this.#read(() =>
      readTranscript(this.#ctx, conversationId, page, options.includeDeleted),
    );
  }

  protected _getImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    return this.#read(() => readContext(this.#ctx, conversationId, n));
  }

  protected _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    return this.#write(() => writeTrace(this.#ctx, trace));
  }

  protected _getTurnTraceByMessageId(
    messageId: string,
    options: ReadRequest,
  ): Promise<TurnTrace | null> {
    return this.#read(() => readTraceOfMessage(this.#ctx, messageId, options.includeDeleted));
  }

  protected _queryTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    return this.#read(() => readTraces(this.#ctx, filter, page));
  }

  /** Core's `summarizeTraces` over the window's traces (see `readUsage`). */
  protected _summarizeUsage(query: UsageQuery): Promise<UsageBucket[]> {
    return this.#read(() => readUsage(this.#ctx, query));
  }

  protected _deleteUserData(userId: string, filter: { tenantId?: string }): Promise<DeletedCounts> {
    return this.#write(() => deleteUserCascade(this.#ctx, userId, filter.tenantId));
  }

  protected override _searchConversations(
    filter: TextSearchFilter,
    page: PageRequest<ConversationKey>,
  ): Promise<TextSearchHit[]> {
    return this.#read(() => searchConversations(this.#ctx, filter, page));
  }

  protected override _listPendingEmbeddings(
    filter: PendingEmbeddingsFilter,
    page: PageRequest<string>,
  ): Promise<Message[]> {
    return this.#read(() => listPendingEmbeddings(this.#ctx, filter, page));
  }

  protected override _setEmbeddings(updates: EmbeddingUpdate[]): Promise<number> {
    return this.#write(() => setEmbeddings(this.#ctx, updates));
  }

  protected async _close(): Promise<void> {
    if (this.#ownsClient) await this.#ctx.client.close();
  }

  /** Driver errors as core's (see `fromDriverError`); anything else as core's default does. */
  protected override mapError(error: unknown): MessageStoreError {
    return fromDriverError(error) ?? super.mapError(error);
  }
}
