import { z } from "zod";
import {
  fastCheckpoint,
  fastPutOptions,
  fastReadOptions,
} from "../canonical/canonical-checkpoint.js";
import {
  fastBatch,
  fastContextSize,
  fastMessage,
  fastNoOptions,
  fastTrace,
  fastTraceBatch,
  MAX_BATCH,
  MAX_CONTEXT,
} from "../canonical/input-fast-paths.js";
import { compressMessages } from "../context/compress-messages.js";
import { ConfigurationError } from "../errors.js";
import { openStore } from "../factory/open-store.js";
import type { StoreConfig } from "../factory/storage-config-map.js";
import {
  type CheckpointInput,
  CheckpointInputSchema,
  type CheckpointPutOptions,
  CheckpointPutOptionsSchema,
  type CheckpointQueryInput,
  CheckpointQuerySchema,
  type CheckpointReadOptions,
  CheckpointReadOptionsSchema,
  type CheckpointWritesInput,
  CheckpointWritesInputSchema,
  type StoredCheckpoint,
} from "../models/checkpoint.js";
import {
  type Conversation,
  type ConversationInput,
  ConversationInputSchema,
} from "../models/conversation.js";
import { type Message, type MessageInput, MessageSchema } from "../models/message.js";
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
  type Scope,
  type SearchHit,
  type SearchQueryInput,
  SearchQuerySchema,
  type TurnTraceQueryInput,
  TurnTraceQuerySchema,
  type UsageBucket,
  type UsageQueryInput,
  UsageQuerySchema,
} from "../models/queries.js";
import {
  type EmbeddingUpdateInput,
  EmbeddingUpdateSchema,
  type SessionOptions,
  SessionOptionsSchema,
  type SessionTurn,
} from "../models/session.js";
import {
  type TextSearchHit,
  type TextSearchQueryInput,
  TextSearchQuerySchema,
} from "../models/text-search.js";
import { type TurnTrace, type TurnTraceInput, TurnTraceSchema } from "../models/turn-trace.js";
import { cursors, type MessageKey } from "../paging/cursor.js";
import { compareIds } from "../paging/ordering.js";
import { decodeCursor, type PageRequest, toPage } from "../paging/page-request.js";
import {
  SessionTurnsSchema,
  sessionConversation,
  sessionMessages,
} from "../session/session-records.js";
import { parseId, parseInput, rejectDuplicateIds } from "../validation.js";
import {
  type GatingCapability,
  requireCapability,
  requireRecordCapabilities,
  requireTenantFilter,
} from "./capabilities.js";
import {
  DRIVER_OPERATIONS,
  type DriverOperation,
  type MessageStoreDriver,
  OPTIONAL_OPERATIONS,
  type RequestOf,
  type ResultOf,
  type SequencedMessage,
} from "./driver.js";
import { Lifecycle } from "./lifecycle.js";
import type { MessageStoreApi, StoreCapabilities } from "./message-store-api.js";
import { asViewRefusal, notFound } from "./owner-refusal.js";
import { narrowScope, ownerValue, scopedFilter } from "./scope.js";

const MessageBatchSchema = z.array(MessageSchema).max(MAX_BATCH);
const TurnTraceBatchSchema = z.array(TurnTraceSchema).max(MAX_BATCH);
const EmbeddingUpdatesSchema = z.array(EmbeddingUpdateSchema).max(MAX_BATCH);
const ContextSizeSchema = z.number().int().min(0).max(MAX_CONTEXT);
const LIVE_ONLY = Object.freeze({ includeDeleted: false });
const UNSCOPED: Scope = Object.freeze({});
const EMPTY: Page<never> = Object.freeze({ items: [], nextCursor: null }) as Page<never>;
const NOTHING: DeletedCounts = Object.freeze({ conversations: 0, messages: 0, turnTraces: 0 });
/** Messages per driver call when `loadSessionMessages` walks a transcript. */
const SESSION_PAGE = 1000;
const asyncDispose: typeof Symbol.asyncDispose =
  Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose");
/** Marks every store made by any copy of core, so `instanceof MessageStore` works across copies. */
const STORE_BRAND = Symbol.for("@message-store/core/MessageStore");

type Owners = { userId?: string | null; tenantId?: string | null };
/** A request without its scope, which `#call` fills from the store's own. */
type Scoped<K extends DriverOperation> = Omit<RequestOf<K>, "scope"> & { scope?: Scope };

/**
 * The message store: the {@link MessageStoreApi} (documented there) over a
 * {@link MessageStoreDriver}. Applications get one from {@link MessageStore.initialize}; an
 * adapter's `open` returns `new MessageStore(driver)`.
 *
 * It keeps what is the same for every backend: it validates and copies every argument once,
 * fills the owners of records written through a view, checks capabilities, rejects calls after
 * `close()` and waits for calls in flight before closing, turns keyset rows into pages and
 * cursors, compresses, rounds search scores, and gives every error the driver's name. A view
 * (`forUser`, `forTenant`) is a `MessageStore` over the same driver with a narrower scope, which
 * travels inside every request.
 */
export class MessageStore<D extends MessageStoreDriver = MessageStoreDriver>
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

  /** True for a store of any copy of core. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[STORE_BRAND] === true
    );
  }

  /** The driver this store (and its views) calls: an adapter's extras live on it. */
  readonly driver: D;
  #life: Lifecycle;
  #scope: Scope = UNSCOPED;

  /**
   * A store over `driver`, open until `close()`. Throws `ConfigurationError` when the driver has
   * no `name` or declares a capability without its methods.
   */
  constructor(driver: D) {
    checkDriver(driver);
    this.driver = driver;
    this.#life = new Lifecycle(driver);
    Object.defineProperty(this, STORE_BRAND, { value: true });
  }

  get capabilities(): StoreCapabilities {
    return this.driver.capabilities;
  }

  /** The driver's name, as in error messages. */
  get adapterName(): string {
    return this.driver.name;
  }

  /** True once `close()` was called on this store or any of its views. */
  get closed(): boolean {
    return this.#life.closed;
  }

  async storeConversation(conversation: ConversationInput): Promise<Conversation> {
    const parsed = this.#parse(ConversationInputSchema, conversation, "conversation");
    return this.#write("storeConversation", { conversation: this.#records([parsed])[0]! });
  }

  async getConversation(id: string, options?: ReadOptions): Promise<Conversation | null> {
    return this.#call("getConversation", this.#readById(id, "conversation id", options));
  }

  async getConversationsByUserId(
    userId: string,
    options: ConversationListOptions = {},
  ): Promise<Page<Conversation>> {
    const user = this.#id(userId, "user id");
    const { limit, cursor, tenantId, ...rest } = this.#parse(
      ConversationListOptionsSchema,
      options,
      "page options",
    );
    const scope = this.#filter({ userId: user, tenantId });
    const after = decodeCursor(cursor, cursors.conversation.decode, this.adapterName);
    if (!scope) return EMPTY;
    const page = { after, take: take(limit) };
    const request = { ...rest, scope: { ...scope, userId: user }, page };
    const rows = await this.#call("getConversationsByUserId", request);
    return toPage(rows, limit ?? null, identity, cursors.conversation.encode);
  }

  async listConversations(options: ListConversationsOptions = {}): Promise<Page<Conversation>> {
    const { limit, cursor, userId, tenantId, ...rest } = this.#parse(
      ListConversationsOptionsSchema,
      options,
      "list options",
    );
    const scope = this.#filter({ userId, tenantId });
    const after = decodeCursor(cursor, cursors.conversationId.decode, this.adapterName);
    if (!scope) return EMPTY;
    const rows = await this.#call("listConversations", {
      ...rest,
      scope,
      page: { after, take: take(limit) },
    });
    return toPage(rows, limit ?? null, identity, (c) => cursors.conversationId.encode(c.id));
  }

  async deleteConversation(id: string): Promise<boolean> {
    return this.#call("deleteConversation", { id: this.#id(id, "conversation id") });
  }

  async softDeleteConversation(id: string): Promise<boolean> {
    const key = this.#id(id, "conversation id");
    return this.#call("softDeleteConversation", { id: key, deletedAt: Date.now() });
  }

  async restoreConversation(id: string): Promise<boolean> {
    return this.#call("restoreConversation", { id: this.#id(id, "conversation id") });
  }

  async storeMessage(message: MessageInput): Promise<Message> {
    const parsed = this.#parse(MessageSchema, message, "message", fastMessage);
    const [stored] = await this.#write("storeMessages", { messages: this.#records([parsed]) });
    return stored!;
  }

  async storeMessages(messages: MessageInput[]): Promise<Message[]> {
    const parsed = this.#parse(MessageBatchSchema, messages, "messages", fastBatch);
    rejectDuplicateIds(parsed, "messages", this.adapterName);
    const records = this.#records(parsed);
    return records.length === 0 ? [] : this.#write("storeMessages", { messages: records });
  }

  async getMessage(id: string, options?: ReadOptions): Promise<Message | null> {
    return this.#call("getMessage", this.#readById(id, "message id", options));
  }

  async flagMessage(id: string, flagged = true): Promise<Message> {
    const key = this.#id(id, "message id");
    const value = this.#parse(z.boolean(), flagged, "flagged");
    const updated = await this.#call("flagMessage", { id: key, flagged: value });
    if (updated === null) throw notFound("message", key, this.adapterName);
    return updated;
  }

  async softDeleteMessage(id: string): Promise<boolean> {
    const key = this.#id(id, "message id");
    return this.#call("softDeleteMessage", { id: key, deletedAt: Date.now() });
  }

  async restoreMessage(id: string): Promise<boolean> {
    return this.#call("restoreMessage", { id: this.#id(id, "message id") });
  }

  async deleteMessage(id: string): Promise<boolean> {
    return this.#call("deleteMessage", { id: this.#id(id, "message id") });
  }

  async purgeDeleted(options: PurgeOptions): Promise<DeletedCounts> {
    const { before, ...owners } = this.#parse(PurgeOptionsSchema, options, "purge options");
    this.#require("softDelete");
    const scope = this.#filter(owners);
    return scope ? this.#call("purgeDeleted", { scope, before }) : NOTHING;
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
    const page = { after, take: take(limit) };
    const rows = await this.#call("getMessagesByConversationId", {
      conversationId: key,
      includeDeleted,
      page,
    });
    return toPage(rows, limit ?? null, messageOf, (r) => cursors.message.encode(messageKey(r)));
  }

  async getImmediateContext(
    conversationId: string,
    n: number,
    options: ContextOptions = {},
  ): Promise<Message[]> {
    const key = this.#id(conversationId, "conversation id");
    const count = this.#parse(ContextSizeSchema, n, "n", fastContextSize);
    const { compress } = this.#parse(ContextOptionsSchema, options, "context", fastNoOptions);
    if (count === 0) return [];
    const messages = await this.#call("getImmediateContext", { conversationId: key, n: count });
    return compress ? compressMessages(messages, compress) : messages;
  }

  async storeSessionMessages(
    conversationId: string,
    turns: SessionTurn[],
    options: SessionOptions,
  ): Promise<Message[]> {
    const key = this.#id(conversationId, "conversation id");
    const parsed = this.#parse(SessionTurnsSchema, turns, "turns");
    const owner = this.#owned(
      this.#parse(SessionOptionsSchema, options, "session options"),
      "session options",
    );
    requireTenantFilter(this.capabilities, owner, this.adapterName);
    rejectDuplicateIds(
      parsed.filter((t): t is typeof t & { id: string } => t.id !== undefined),
      "turns",
      this.adapterName,
    );
    if (parsed.length === 0) return [];
    const now = Date.now();
    return this.#write("storeSessionMessages", {
      conversation: sessionConversation(key, owner, now, this.adapterName),
      messages: sessionMessages(key, parsed, owner, now, this.adapterName),
      now,
    });
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
      const request = { conversationId: key, includeDeleted: false, page };
      const rows: SequencedMessage[] = await this.#call("getMessagesByConversationId", request);
      for (const r of rows) messages.push(r.message);
      if (rows.length < SESSION_PAGE) break;
      after = messageKey(rows[rows.length - 1]!);
    }
    return compress ? compressMessages(messages, compress) : messages;
  }

  async storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace> {
    const parsed = this.#parse(TurnTraceSchema, trace, "turn trace", fastTrace);
    const [stored] = await this.#write("storeTurnTraces", { traces: this.#records([parsed]) });
    return stored!;
  }

  async storeTurnTraces(traces: TurnTraceInput[]): Promise<TurnTrace[]> {
    const parsed = this.#parse(TurnTraceBatchSchema, traces, "turn traces", fastTraceBatch);
    rejectDuplicateIds(parsed, "turn traces", this.adapterName);
    const records = this.#records(parsed);
    return records.length === 0 ? [] : this.#write("storeTurnTraces", { traces: records });
  }

  async getTurnTraceByMessageId(
    messageId: string,
    options?: ReadOptions,
  ): Promise<TurnTrace | null> {
    return this.#call("getTurnTraceByMessageId", this.#readById(messageId, "message id", options));
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
    const { limit, cursor, userId, tenantId, ...filter } = this.#parse(
      TurnTraceQuerySchema,
      query,
      "trace query",
    );
    const scope = this.#filter({ userId, tenantId });
    const after = decodeCursor(cursor, cursors.trace.decode, this.adapterName);
    if (!scope) return EMPTY;
    const page = { after, take: take(limit) };
    const rows = await this.#call("queryTurnTraces", { scope, filter, page });
    return toPage(rows, limit ?? null, identity, cursors.trace.encode);
  }

  async summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]> {
    const { userId, tenantId, ...rest } = this.#parse(UsageQuerySchema, query, "usage query");
    const scope = this.#filter({ userId, tenantId });
    return scope ? this.#call("summarizeUsage", { scope, query: rest }) : [];
  }

  async deleteUserData(
    userId: string,
    options: DeleteUserDataOptions = {},
  ): Promise<DeletedCounts> {
    const user = this.#id(userId, "user id");
    const { tenantId } = this.#parse(DeleteUserDataOptionsSchema, options, "erasure options");
    const scope = this.#filter({ userId: user, tenantId });
    return scope ? this.#call("deleteUserData", { scope: { ...scope, userId: user } }) : NOTHING;
  }

  async searchMessages(query: SearchQueryInput): Promise<SearchHit[]> {
    const { userId, tenantId, ...rest } = this.#parse(SearchQuerySchema, query, "search query");
    this.#require("semanticSearch");
    const scope = this.#filter({ userId, tenantId });
    if (!scope) return [];
    const hits = await this.#call("searchMessages", { scope, query: rest });
    return hits
      .map((h) => ({ message: h.message, score: Math.round(h.score * 1e9) / 1e9 }))
      .sort((a, b) => b.score - a.score || compareIds(a.message.id, b.message.id))
      .slice(0, rest.limit);
  }

  async searchConversations(query: TextSearchQueryInput): Promise<Page<TextSearchHit>> {
    const { limit, cursor, userId, tenantId, ...filter } = this.#parse(
      TextSearchQuerySchema,
      query,
      "text search",
    );
    this.#require("textSearch");
    const scope = this.#filter({ userId, tenantId });
    const after = decodeCursor(cursor, cursors.conversation.decode, this.adapterName);
    if (!scope) return EMPTY;
    const page = { after, take: limit + 1 };
    const rows = await this.#call("searchConversations", { scope, filter, page });
    return toPage(rows, limit, identity, (hit) => cursors.conversation.encode(hit.conversation));
  }

  async listPendingEmbeddings(options: PendingEmbeddingsOptions = {}): Promise<Page<Message>> {
    const { limit, cursor, userId, tenantId, ...filter } = this.#parse(
      PendingEmbeddingsOptionsSchema,
      options,
      "pending embeddings options",
    );
    this.#require("embeddingQueue");
    const scope = this.#filter({ userId, tenantId });
    const after = decodeCursor(cursor, cursors.messageId.decode, this.adapterName);
    if (!scope) return EMPTY;
    const page = { after, take: take(limit) };
    const rows = await this.#call("listPendingEmbeddings", { scope, filter, page });
    return toPage(rows, limit ?? null, identity, (m) => cursors.messageId.encode(m.id));
  }

  async setEmbeddings(updates: EmbeddingUpdateInput[]): Promise<number> {
    const parsed = this.#parse(EmbeddingUpdatesSchema, updates, "embedding updates");
    rejectDuplicateIds(parsed, "embedding updates", this.adapterName);
    this.#require("embeddingQueue");
    return parsed.length === 0 ? 0 : this.#call("setEmbeddings", { updates: parsed });
  }

  async putCheckpoint(checkpoint: CheckpointInput, options: CheckpointPutOptions): Promise<void> {
    const parsed = this.#parse(CheckpointInputSchema, checkpoint, "checkpoint", fastCheckpoint);
    const { messages, traces, ...session } = this.#parse(
      CheckpointPutOptionsSchema,
      options,
      "checkpoint options",
      fastPutOptions as (v: unknown) => z.output<typeof CheckpointPutOptionsSchema> | undefined,
    );
    const owner = this.#owned(session, "checkpoint options");
    requireTenantFilter(this.capabilities, owner, this.adapterName);
    rejectDuplicateIds(
      messages.filter((t): t is typeof t & { id: string } => t.id !== undefined),
      "checkpoint messages",
      this.adapterName,
    );
    rejectDuplicateIds(traces, "checkpoint traces", this.adapterName);
    const id = parsed.conversationId;
    const now = Date.now();
    await this.#write("putCheckpoint", {
      conversation: sessionConversation(id, owner, now, this.adapterName),
      checkpoint: parsed,
      messages: sessionMessages(id, messages, owner, now, this.adapterName),
      traces: this.#records(traces),
      now,
    });
  }

  async putCheckpointWrites(writes: CheckpointWritesInput, options: SessionOptions): Promise<void> {
    const parsed = this.#parse(CheckpointWritesInputSchema, writes, "checkpoint writes");
    const owner = this.#owned(
      this.#parse(SessionOptionsSchema, options, "session options"),
      "session options",
    );
    requireTenantFilter(this.capabilities, owner, this.adapterName);
    const conversation = sessionConversation(
      parsed.conversationId,
      owner,
      Date.now(),
      this.adapterName,
    );
    await this.#write("putCheckpointWrites", { conversation, writes: parsed });
  }

  async getCheckpoint(
    conversationId: string,
    options: CheckpointReadOptions = {},
  ): Promise<StoredCheckpoint | null> {
    const key = this.#id(conversationId, "conversation id");
    const { namespace, id } = this.#parse(
      CheckpointReadOptionsSchema,
      options,
      "read options",
      fastReadOptions,
    );
    return this.#call("getCheckpoint", { conversationId: key, namespace, id: id ?? null });
  }

  async listCheckpoints(query: CheckpointQueryInput = {}): Promise<Page<StoredCheckpoint>> {
    const { limit, cursor, userId, tenantId, ...filter } = this.#parse(
      CheckpointQuerySchema,
      query,
      "checkpoint query",
    );
    this.#require("checkpoints");
    const scope = this.#filter({ userId, tenantId });
    const after = decodeCursor(cursor, cursors.checkpoint.decode, this.adapterName);
    if (!scope) return EMPTY;
    const page = { after, take: take(limit) };
    const rows = await this.#call("listCheckpoints", { scope, filter, page });
    return toPage(rows, limit ?? null, identity, cursors.checkpoint.encode);
  }

  async deleteCheckpoints(conversationId: string): Promise<boolean> {
    return this.#call("deleteCheckpoints", { id: this.#id(conversationId, "conversation id") });
  }

  /** See {@link MessageStoreApi.forUser}. Throws `ValidationError` for an invalid id. */
  forUser(userId: string): MessageStore<D> {
    const id = this.#id(userId, "user id");
    return this.#view(narrowScope(this.#scope, "userId", id, this.adapterName));
  }

  /**
   * See {@link MessageStoreApi.forTenant}. Throws `ValidationError` for an invalid id and
   * `UnsupportedOperationError` unless `capabilities.tenants`.
   */
  forTenant(tenantId: string): MessageStore<D> {
    const id = this.#id(tenantId, "tenant id");
    this.#require("tenants");
    return this.#view(narrowScope(this.#scope, "tenantId", id, this.adapterName));
  }

  /**
   * Waits for calls in flight, then releases everything the driver owns (a caller-owned pool or
   * client is left open). Idempotent: a second call resolves when the first finishes. Every other
   * method, of the store and of its views, rejects with `StoreClosedError` afterwards.
   */
  close(): Promise<void> {
    return this.#life.close();
  }

  [asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---- plumbing ----

  #view(scope: Scope): MessageStore<D> {
    const view = new MessageStore(this.driver);
    view.#life = this.#life;
    view.#scope = scope;
    return view;
  }

  /**
   * One driver call, with the view's scope unless the request names one: the capability is
   * checked first, then the call runs through the lifecycle.
   */
  #call<K extends DriverOperation>(op: K, request: Scoped<K>): Promise<ResultOf<K>> {
    const flag = (OPTIONAL_OPERATIONS as Partial<Record<DriverOperation, GatingCapability>>)[op];
    if (flag) this.#require(flag);
    const full = (request.scope ? request : { ...request, scope: this.#scope }) as RequestOf<K>;
    const method = this.driver[op] as (r: RequestOf<K>) => Promise<ResultOf<K>>;
    return this.#life.run(() => method.call(this.driver, full));
  }

  /** A record write: through a view, an owner refusal is answered as "does not exist". */
  async #write<K extends DriverOperation>(op: K, request: Scoped<K>): Promise<ResultOf<K>> {
    try {
      return await this.#call(op, request);
    } catch (error) {
      throw this.#scope === UNSCOPED ? error : asViewRefusal(error, this.adapterName);
    }
  }

  /** Validated records to write: the view's owners filled in, capabilities checked. */
  #records<R extends Owners & { tenantId: string | null; deletedAt: number | null }>(
    records: R[],
  ): R[] {
    for (const r of records) this.#owned(r, "record");
    requireRecordCapabilities(this.capabilities, records, this.adapterName);
    return records;
  }

  #readById(id: unknown, what: string, options: ReadOptions | undefined) {
    const key = this.#id(id, what);
    const read =
      options === undefined ? LIVE_ONLY : this.#parse(ReadOptionsSchema, options, "read options");
    return { id: key, includeDeleted: read.includeDeleted };
  }

  /** The record with the view's owners filled in (another owner is a `ValidationError`). */
  #owned<R extends Owners>(record: R, what: string): R {
    if (this.#scope === UNSCOPED) return record;
    const { userId, tenantId } = this.#scope;
    if (userId !== undefined)
      record.userId = ownerValue(record.userId, userId, "userId", what, this.adapterName);
    if (tenantId !== undefined)
      record.tenantId = ownerValue(record.tenantId, tenantId, "tenantId", what, this.adapterName);
    return record;
  }

  /** A caller's owner filter merged with the view's scope; `null` when they contradict. */
  #filter(owners: { userId?: string | undefined; tenantId?: string | undefined }): Scope | null {
    requireTenantFilter(this.capabilities, owners, this.adapterName);
    return scopedFilter(owners, this.#scope);
  }

  #parse<S extends z.ZodType>(
    schema: S,
    value: unknown,
    what: string,
    fast?: (value: unknown) => z.output<S> | undefined,
  ): z.output<S> {
    this.#life.assertOpen();
    return parseInput(schema, value, what, this.adapterName, fast);
  }

  #id(value: unknown, what: string): string {
    this.#life.assertOpen();
    return parseId(value, what, this.adapterName);
  }

  #require(flag: GatingCapability): void {
    requireCapability(this.capabilities, flag, this.adapterName);
  }
}

/** A driver must have a name, and every method of each capability it declares. */
function checkDriver(driver: MessageStoreDriver): void {
  if (typeof driver?.name !== "string" || driver.name.length === 0) {
    throw new ConfigurationError("a message store driver needs a non-empty name");
  }
  for (const op of DRIVER_OPERATIONS) {
    const flag = (OPTIONAL_OPERATIONS as Partial<Record<DriverOperation, GatingCapability>>)[op];
    if (flag && driver.capabilities[flag] !== true) continue;
    if (typeof driver[op] !== "function") {
      const why = flag ? `it declares ${flag} but` : "it";
      throw new ConfigurationError(`driver "${driver.name}": ${why} has no ${op}()`, {
        adapter: driver.name,
      });
    }
  }
}

function take(limit: number | undefined): number | null {
  return limit === undefined ? null : limit + 1;
}

function identity<T>(value: T): T {
  return value;
}

const messageOf = (r: SequencedMessage): Message => r.message;

const messageKey = (r: SequencedMessage): MessageKey => ({
  timestamp: r.message.timestamp,
  sequence: r.sequence,
});
