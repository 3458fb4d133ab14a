import { z } from "zod";
import {
  fastBatch,
  fastContextSize,
  fastMessage,
  fastNoOptions,
  fastTrace,
  fastTraceBatch,
  MAX_BATCH,
  MAX_CONTEXT,
} from "./canonical/input-fast-paths.js";
import {
  requireCapability,
  requireRecordCapabilities,
  requireTenantFilter,
} from "./capabilities.js";
import { compressMessages } from "./context/compress-messages.js";
import {
  isMessageStoreError,
  StoreClosedError,
  stampAdapter,
  UnsupportedOperationError,
} from "./errors.js";
import { openStore } from "./factory/open-store.js";
import type { StoreConfig } from "./factory/storage-config-map.js";
import type { MessageStoreApi } from "./message-store-api.js";
import {
  MessageStoreHooks,
  type ReadRequest,
  type StoreMessagesOptions,
} from "./message-store-hooks.js";
import {
  type Conversation,
  type ConversationInput,
  ConversationInputSchema,
} from "./models/conversation.js";
import { type Message, type MessageInput, MessageSchema } from "./models/message.js";
import {
  type AgentTraceOptions,
  AgentTraceOptionsSchema,
  type ContextOptions,
  ContextOptionsSchema,
  type ConversationListOptions,
  ConversationListOptionsSchema,
  type DeletedCounts,
  type DeleteUserDataOptions,
  DeleteUserDataOptionsSchema,
  type ListConversationsOptions,
  ListConversationsOptionsSchema,
  type LoadSessionOptions,
  LoadSessionOptionsSchema,
  type MessageListOptions,
  MessageListOptionsSchema,
  type Page,
  type PendingEmbeddingsOptions,
  PendingEmbeddingsOptionsSchema,
  type PurgeOptions,
  PurgeOptionsSchema,
  type ReadOptions,
  ReadOptionsSchema,
  type SearchHit,
  type SearchQueryInput,
  SearchQuerySchema,
  type TurnTraceQueryInput,
  TurnTraceQuerySchema,
  type UsageBucket,
  type UsageQueryInput,
  UsageQuerySchema,
} from "./models/queries.js";
import {
  type EmbeddingUpdateInput,
  EmbeddingUpdateSchema,
  type SessionOptions,
  SessionOptionsSchema,
  type SessionTurn,
} from "./models/session.js";
import {
  type TextSearchHit,
  type TextSearchQueryInput,
  TextSearchQuerySchema,
} from "./models/text-search.js";
import { type TurnTrace, type TurnTraceInput, TurnTraceSchema } from "./models/turn-trace.js";
import { cursors, type MessageKey } from "./paging/cursor.js";
import { compareIds } from "./paging/ordering.js";
import { decodeCursor, type PageRequest, toPage } from "./paging/page-request.js";
import { ScopedStore } from "./scoped/scoped-store.js";
import {
  SessionTurnsSchema,
  sessionConversation,
  sessionMessages,
} from "./session/session-records.js";
import { parseId, parseInput, rejectDuplicateIds } from "./validation.js";

const MessageBatchSchema = z.array(MessageSchema).max(MAX_BATCH);
const TurnTraceBatchSchema = z.array(TurnTraceSchema).max(MAX_BATCH);
const EmbeddingUpdatesSchema = z.array(EmbeddingUpdateSchema).max(MAX_BATCH);
const LIVE_ONLY: ReadRequest = Object.freeze({ includeDeleted: false });
const WITH_DELETED: ReadRequest = Object.freeze({ includeDeleted: true });
const NO_STORE_OPTIONS: StoreMessagesOptions = Object.freeze({});
/** Messages per hook call when `loadSessionMessages` walks a transcript. */
const SESSION_PAGE = 1000;
const ContextSizeSchema = z.number().int().min(0).max(MAX_CONTEXT);
const asyncDispose: typeof Symbol.asyncDispose =
  Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose");
/** Marks every store made by any copy of core, so `instanceof MessageStore` works across copies. */
const STORE_BRAND = Symbol.for("@message-store/core/MessageStore");
const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

/**
 * The abstract message store. Application code gets one from {@link MessageStore.initialize} and
 * programs against the {@link MessageStoreApi} methods, documented there.
 *
 * Adapter authors extend this class and implement the protected hooks only (see
 * `MessageStoreHooks` and `@message-store/core/adapter`). The public methods (here, once for
 * every adapter) validate input, reject after `close()`, wait for calls in flight before
 * closing, turn keyset rows into pages and cursors, and give every error the adapter's name.
 */
export abstract class MessageStore
  extends MessageStoreHooks
  implements MessageStoreApi, AsyncDisposable
{
  /**
   * Creates, connects and initialises the store named by `config.storage`, through the adapter
   * registered under that name: importing an adapter package registers it (in plain Node, a
   * built-in adapter that was not imported is imported by its package name). Throws
   * `ConfigurationError` for an unknown storage or a bad config, `ConnectionError` when the
   * backend cannot be reached. See {@link StoreConfig} for the typed config.
   */
  static initialize(config: StoreConfig): Promise<MessageStore> {
    return openStore<MessageStore>(config);
  }

  /** True for a store of any copy of core; subclasses keep the ordinary prototype check. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of `instanceof`, a subclass included
    if (this !== MessageStore) return ordinaryHasInstance.call(this, value);
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[STORE_BRAND] === true
    );
  }

  constructor() {
    super();
    Object.defineProperty(this, STORE_BRAND, { value: true });
  }

  #closed = false;
  #closing: Promise<void> | null = null;
  readonly #inFlight = new Set<Promise<unknown>>();

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  async storeConversation(conversation: ConversationInput): Promise<Conversation> {
    const record = this.#parse(ConversationInputSchema, conversation, "conversation");
    requireRecordCapabilities(this.capabilities, [record], this.adapterName);
    return this.#run(() => this._storeConversation(record));
  }

  async getConversation(id: string, options?: ReadOptions): Promise<Conversation | null> {
    const key = this.#id(id, "conversation id");
    const read = this.#readOptions(options);
    return this.#run(() => this._getConversation(key, read));
  }

  async getConversationsByUserId(
    userId: string,
    options: ConversationListOptions = {},
  ): Promise<Page<Conversation>> {
    const key = this.#id(userId, "user id");
    const { limit, cursor, ...filter } = this.#parse(
      ConversationListOptionsSchema,
      options,
      "page options",
    );
    requireTenantFilter(this.capabilities, filter, this.adapterName);
    const after = decodeCursor(cursor, cursors.conversation.decode, this.adapterName);
    const rows = await this.#run(() =>
      this._getConversationsByUserId(key, { after, take: take(limit) }, filter),
    );
    return toPage(rows, limit ?? null, identity, cursors.conversation.encode);
  }

  async listConversations(options: ListConversationsOptions = {}): Promise<Page<Conversation>> {
    const { userId, limit, cursor, ...filter } = this.#parse(
      ListConversationsOptionsSchema,
      options,
      "list options",
    );
    requireTenantFilter(this.capabilities, filter, this.adapterName);
    const after = decodeCursor(cursor, cursors.conversationId.decode, this.adapterName);
    const rows = await this.#run(() =>
      this._listConversations(userId ?? null, { after, take: take(limit) }, filter),
    );
    return toPage(rows, limit ?? null, identity, (c) => cursors.conversationId.encode(c.id));
  }

  async deleteConversation(id: string): Promise<boolean> {
    const key = this.#id(id, "conversation id");
    return this.#run(() => this._deleteConversation(key));
  }

  async softDeleteConversation(id: string): Promise<boolean> {
    const key = this.#id(id, "conversation id");
    this.#require("softDelete");
    return this.#run(() => this._softDeleteConversation(key, Date.now()));
  }

  async restoreConversation(id: string): Promise<boolean> {
    const key = this.#id(id, "conversation id");
    this.#require("softDelete");
    return this.#run(() => this._restoreConversation(key));
  }

  async storeMessage(message: MessageInput): Promise<Message> {
    const record = this.#parse(MessageSchema, message, "message", fastMessage);
    requireRecordCapabilities(this.capabilities, [record], this.adapterName);
    const [stored] = await this.#run(() => this._storeMessages([record], NO_STORE_OPTIONS));
    return stored!;
  }

  async storeMessages(messages: MessageInput[]): Promise<Message[]> {
    const records = this.#parse(MessageBatchSchema, messages, "messages", fastBatch);
    rejectDuplicateIds(records, "messages", this.adapterName);
    requireRecordCapabilities(this.capabilities, records, this.adapterName);
    if (records.length === 0) return [];
    return this.#run(() => this._storeMessages(records, NO_STORE_OPTIONS));
  }

  async getMessage(id: string, options?: ReadOptions): Promise<Message | null> {
    const key = this.#id(id, "message id");
    const read = this.#readOptions(options);
    return this.#run(() => this._getMessage(key, read));
  }

  async flagMessage(id: string, flagged = true): Promise<Message> {
    const key = this.#id(id, "message id");
    const value = this.#parse(z.boolean(), flagged, "flagged");
    const updated = await this.#run(() => this._flagMessage(key, value));
    if (updated === null) throw this.notFound(`message ${JSON.stringify(key)} does not exist`);
    return updated;
  }

  async softDeleteMessage(id: string): Promise<boolean> {
    const key = this.#id(id, "message id");
    this.#require("softDelete");
    return this.#run(() => this._softDeleteMessage(key, Date.now()));
  }

  async restoreMessage(id: string): Promise<boolean> {
    const key = this.#id(id, "message id");
    this.#require("softDelete");
    return this.#run(() => this._restoreMessage(key));
  }

  async deleteMessage(id: string): Promise<boolean> {
    const key = this.#id(id, "message id");
    return this.#run(() => this._deleteMessage(key));
  }

  async purgeDeleted(options: PurgeOptions): Promise<DeletedCounts> {
    const { before, ...scope } = this.#parse(PurgeOptionsSchema, options, "purge options");
    this.#require("softDelete");
    requireTenantFilter(this.capabilities, scope, this.adapterName);
    return this.#run(() => this._purgeDeleted(before, scope));
  }

  async getMessagesByConversationId(
    conversationId: string,
    options: MessageListOptions = {},
  ): Promise<Page<Message>> {
    const key = this.#id(conversationId, "conversation id");
    const { limit, cursor, includeDeleted } = this.#parse(
      MessageListOptionsSchema,
      options,
      "page options",
    );
    const after = decodeCursor(cursor, cursors.message.decode, this.adapterName);
    const rows = await this.#run(() =>
      this._getMessagesByConversationId(key, { after, take: take(limit) }, { includeDeleted }),
    );
    return toPage(
      rows,
      limit ?? null,
      (r) => r.message,
      (r) => cursors.message.encode({ timestamp: r.message.timestamp, sequence: r.sequence }),
    );
  }

  async getImmediateContext(
    conversationId: string,
    n: number,
    options: ContextOptions = {},
  ): Promise<Message[]> {
    const key = this.#id(conversationId, "conversation id");
    const count = this.#parse(ContextSizeSchema, n, "n", fastContextSize);
    const { compress } = this.#parse(
      ContextOptionsSchema,
      options,
      "context options",
      fastNoOptions,
    );
    if (count === 0) return [];
    const messages = await this.#run(() => this._getImmediateContext(key, count));
    return compress ? compressMessages(messages, compress) : messages;
  }

  async storeSessionMessages(
    conversationId: string,
    turns: SessionTurn[],
    options: SessionOptions,
  ): Promise<Message[]> {
    const key = this.#id(conversationId, "conversation id");
    const parsed = this.#parse(SessionTurnsSchema, turns, "turns");
    const session = this.#parse(SessionOptionsSchema, options, "session options");
    requireTenantFilter(this.capabilities, session, this.adapterName);
    rejectDuplicateIds(
      parsed.filter((t): t is typeof t & { id: string } => t.id !== undefined),
      "turns",
      this.adapterName,
    );
    if (parsed.length === 0) return [];
    // Timestamps go after the newest message: `lastActivityAt` is at least its timestamp.
    const existing = await this.#run(() => this._getConversation(key, WITH_DELETED));
    const now = Date.now();
    const start = existing ? Math.max(now, existing.lastActivityAt + 1) : now;
    const messages = sessionMessages(key, parsed, session, start, this.adapterName);
    const ensureConversation = sessionConversation(key, session, now, this.adapterName);
    return this.#run(() => this._storeMessages(messages, { ensureConversation }));
  }

  async loadSessionMessages(
    conversationId: string,
    options: LoadSessionOptions = {},
  ): Promise<Message[]> {
    const key = this.#id(conversationId, "conversation id");
    const { compress } = this.#parse(LoadSessionOptionsSchema, options, "load options");
    const messages: Message[] = [];
    let after: MessageKey | null = null;
    for (;;) {
      const page: PageRequest<MessageKey> = { after, take: SESSION_PAGE };
      const rows = await this.#run(() =>
        this._getMessagesByConversationId(key, page, { includeDeleted: false }),
      );
      for (const r of rows) messages.push(r.message);
      if (rows.length < SESSION_PAGE) break;
      const last = rows[rows.length - 1]!;
      after = { timestamp: last.message.timestamp, sequence: last.sequence };
    }
    return compress ? compressMessages(messages, compress) : messages;
  }

  async storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace> {
    const record = this.#parse(TurnTraceSchema, trace, "turn trace", fastTrace);
    requireRecordCapabilities(this.capabilities, [record], this.adapterName);
    return this.#run(() => this._storeTurnTrace(record));
  }

  async storeTurnTraces(traces: TurnTraceInput[]): Promise<TurnTrace[]> {
    const records = this.#parse(TurnTraceBatchSchema, traces, "turn traces", fastTraceBatch);
    rejectDuplicateIds(records, "turn traces", this.adapterName);
    requireRecordCapabilities(this.capabilities, records, this.adapterName);
    if (records.length === 0) return [];
    return this.#run(() => this._storeTurnTraces(records));
  }

  async getTurnTraceByMessageId(
    messageId: string,
    options?: ReadOptions,
  ): Promise<TurnTrace | null> {
    const key = this.#id(messageId, "message id");
    const read = this.#readOptions(options);
    return this.#run(() => this._getTurnTraceByMessageId(key, read));
  }

  async getTurnTracesByAgentId(
    agentId: string,
    options: AgentTraceOptions = {},
  ): Promise<Page<TurnTrace>> {
    const key = this.#id(agentId, "agent id");
    const parsed = this.#parse(AgentTraceOptionsSchema, options, "trace options");
    return this.queryTurnTraces({ ...parsed, agentId: key });
  }

  async queryTurnTraces(query: TurnTraceQueryInput = {}): Promise<Page<TurnTrace>> {
    const { limit, cursor, ...filter } = this.#parse(TurnTraceQuerySchema, query, "trace query");
    requireTenantFilter(this.capabilities, filter, this.adapterName);
    const after = decodeCursor(cursor, cursors.trace.decode, this.adapterName);
    const rows = await this.#run(() => this._queryTurnTraces(filter, { after, take: take(limit) }));
    return toPage(rows, limit ?? null, identity, cursors.trace.encode);
  }

  async summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]> {
    const parsed = this.#parse(UsageQuerySchema, query, "usage query");
    requireTenantFilter(this.capabilities, parsed, this.adapterName);
    return this.#run(() => this._summarizeUsage(parsed));
  }

  async deleteUserData(
    userId: string,
    options: DeleteUserDataOptions = {},
  ): Promise<DeletedCounts> {
    const key = this.#id(userId, "user id");
    const filter = this.#parse(DeleteUserDataOptionsSchema, options, "erasure options");
    requireTenantFilter(this.capabilities, filter, this.adapterName);
    return this.#run(() => this._deleteUserData(key, filter));
  }

  async searchMessages(query: SearchQueryInput): Promise<SearchHit[]> {
    const parsed = this.#parse(SearchQuerySchema, query, "search query");
    if (!this.capabilities.semanticSearch) {
      throw new UnsupportedOperationError("this adapter does not support semantic search", {
        adapter: this.adapterName,
      });
    }
    requireTenantFilter(this.capabilities, parsed, this.adapterName);
    const hits = await this.#run(() => this._searchMessages(parsed));
    return hits
      .map((h) => ({ message: h.message, score: Math.round(h.score * 1e9) / 1e9 }))
      .sort((a, b) => b.score - a.score || compareIds(a.message.id, b.message.id))
      .slice(0, parsed.limit);
  }

  async searchConversations(query: TextSearchQueryInput): Promise<Page<TextSearchHit>> {
    const { limit, cursor, ...filter } = this.#parse(TextSearchQuerySchema, query, "text search");
    this.#require("textSearch");
    requireTenantFilter(this.capabilities, filter, this.adapterName);
    const after = decodeCursor(cursor, cursors.conversation.decode, this.adapterName);
    const rows = await this.#run(() =>
      this._searchConversations(filter, { after, take: limit + 1 }),
    );
    return toPage(rows, limit, identity, (hit) =>
      cursors.conversation.encode({
        lastActivityAt: hit.conversation.lastActivityAt,
        id: hit.conversation.id,
      }),
    );
  }

  async listPendingEmbeddings(options: PendingEmbeddingsOptions = {}): Promise<Page<Message>> {
    const { limit, cursor, ...filter } = this.#parse(
      PendingEmbeddingsOptionsSchema,
      options,
      "pending embeddings options",
    );
    this.#require("embeddingQueue");
    requireTenantFilter(this.capabilities, filter, this.adapterName);
    const after = decodeCursor(cursor, cursors.messageId.decode, this.adapterName);
    const rows = await this.#run(() =>
      this._listPendingEmbeddings(filter, { after, take: take(limit) }),
    );
    return toPage(rows, limit ?? null, identity, (m) => cursors.messageId.encode(m.id));
  }

  async setEmbeddings(updates: EmbeddingUpdateInput[]): Promise<number> {
    const parsed = this.#parse(EmbeddingUpdatesSchema, updates, "embedding updates");
    rejectDuplicateIds(parsed, "embedding updates", this.adapterName);
    this.#require("embeddingQueue");
    if (parsed.length === 0) return 0;
    return this.#run(() => this._setEmbeddings(parsed));
  }

  /** See {@link MessageStoreApi.forUser}. Throws `ValidationError` for an invalid id. */
  forUser(userId: string): MessageStoreApi {
    return new ScopedStore(this, { userId: this.#id(userId, "user id") });
  }

  /**
   * See {@link MessageStoreApi.forTenant}. Throws `ValidationError` for an invalid id and
   * `UnsupportedOperationError` unless `capabilities.tenants`.
   */
  forTenant(tenantId: string): MessageStoreApi {
    const key = this.#id(tenantId, "tenant id");
    this.#require("tenants");
    return new ScopedStore(this, { tenantId: key });
  }

  /**
   * Waits for calls in flight, then releases everything the store owns (a caller-owned pool or
   * client is left open). Idempotent: a second call resolves when the first finishes. Every other
   * method rejects with `StoreClosedError` afterwards.
   */
  close(): Promise<void> {
    if (!this.#closing) {
      this.#closed = true;
      this.#closing = Promise.allSettled([...this.#inFlight]).then(() =>
        this.#guard(() => this._close()),
      );
    }
    return this.#closing;
  }

  [asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---- plumbing ----

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError({ adapter: this.adapterName });
  }

  async #run<T>(operation: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    const pending = this.#guard(operation);
    this.#inFlight.add(pending);
    try {
      return await pending;
    } finally {
      this.#inFlight.delete(pending);
    }
  }

  /** Runs a hook so that whatever it throws, synchronously or not, is core's error with this adapter's name. */
  async #guard<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      const mapped = isMessageStoreError(error) ? error : this.mapError(error);
      throw stampAdapter(mapped, this.adapterName);
    }
  }

  #parse<S extends z.ZodType>(
    schema: S,
    value: unknown,
    what: string,
    fast?: (value: unknown) => z.output<S> | undefined,
  ): z.output<S> {
    this.#assertOpen();
    return parseInput(schema, value, what, this.adapterName, fast);
  }

  #id(value: unknown, what: string): string {
    this.#assertOpen();
    return parseId(value, what, this.adapterName);
  }

  #readOptions(options: ReadOptions | undefined): ReadRequest {
    if (options === undefined) return LIVE_ONLY;
    return this.#parse(ReadOptionsSchema, options, "read options");
  }

  #require(flag: "softDelete" | "tenants" | "embeddingQueue" | "textSearch"): void {
    requireCapability(this.capabilities, flag, this.adapterName);
  }
}

function take(limit: number | undefined): number | null {
  return limit === undefined ? null : limit + 1;
}

function identity<T>(value: T): T {
  return value;
}
