import { ConfigurationError } from "../errors.js";
import { openStore } from "../factory/open-store.js";
import type { StoreConfig } from "../factory/storage-config-map.js";
import type {
  CheckpointInput,
  CheckpointPutOptions,
  CheckpointQueryInput,
  CheckpointReadOptions,
  CheckpointWritesInput,
  StoredCheckpoint,
} from "../models/checkpoint.js";
import type { Conversation, ConversationInput } from "../models/conversation.js";
import type { Message, MessageInput } from "../models/message.js";
import type {
  AgentTraceOptions,
  ContextOptions,
  ConversationListOptions,
  DeletedCounts,
  DeleteUserDataOptions,
  ListConversationsOptions,
  LoadSessionOptions,
  MessageListOptions,
  Page,
  PendingEmbeddingsOptions,
  PurgeOptions,
  ReadOptions,
  Scope,
  SearchHit,
  SearchQueryInput,
  TurnTraceQueryInput,
  UsageBucket,
  UsageQueryInput,
} from "../models/queries.js";
import type { EmbeddingUpdateInput, SessionOptions, SessionTurn } from "../models/session.js";
import type { TextSearchHit, TextSearchQueryInput } from "../models/text-search.js";
import type { TurnTrace, TurnTraceInput } from "../models/turn-trace.js";
import type { GatingCapability } from "./capabilities.js";
import {
  DRIVER_OPERATIONS,
  type DriverOperation,
  type MessageStoreDriver,
  OPTIONAL_OPERATIONS,
} from "./driver.js";
import { Lifecycle } from "./lifecycle.js";
import type { MessageStoreApi, StoreCapabilities } from "./message-store-api.js";
import * as checkpoints from "./operations/checkpoint-operations.js";
import * as conversations from "./operations/conversation-operations.js";
import * as messages from "./operations/message-operations.js";
import * as search from "./operations/search-operations.js";
import * as sessions from "./operations/session-operations.js";
import * as traces from "./operations/trace-operations.js";
import { narrowScope } from "./scope.js";
import { StoreContext, UNSCOPED } from "./store-context.js";

const asyncDispose: typeof Symbol.asyncDispose =
  Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose");
/** Marks every store made by any copy of core, so `instanceof MessageStore` works across copies. */
const STORE_BRAND = Symbol.for("@message-store/core/MessageStore");

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
 * travels inside every request. Each method is one function of `operations/` (a family of
 * operations a file), made of the steps of a {@link StoreContext}.
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
  #ctx: StoreContext<D>;

  /**
   * A store over `driver`, open until `close()`. Throws `ConfigurationError` when the driver has
   * no `name` or declares a capability without its methods.
   */
  constructor(driver: D) {
    checkDriver(driver);
    this.driver = driver;
    this.#ctx = new StoreContext(driver, new Lifecycle(driver), UNSCOPED);
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
    return this.#ctx.life.closed;
  }

  storeConversation(conversation: ConversationInput): Promise<Conversation> {
    return conversations.storeConversation(this.#ctx, conversation);
  }

  getConversation(id: string, options?: ReadOptions): Promise<Conversation | null> {
    return conversations.getConversation(this.#ctx, id, options);
  }

  getConversationsByUserId(
    userId: string,
    options: ConversationListOptions = {},
  ): Promise<Page<Conversation>> {
    return conversations.getConversationsByUserId(this.#ctx, userId, options);
  }

  listConversations(options: ListConversationsOptions = {}): Promise<Page<Conversation>> {
    return conversations.listConversations(this.#ctx, options);
  }

  deleteConversation(id: string): Promise<boolean> {
    return conversations.deleteConversation(this.#ctx, id);
  }

  softDeleteConversation(id: string): Promise<boolean> {
    return conversations.softDeleteConversation(this.#ctx, id);
  }

  restoreConversation(id: string): Promise<boolean> {
    return conversations.restoreConversation(this.#ctx, id);
  }

  storeMessage(message: MessageInput): Promise<Message> {
    return messages.storeMessage(this.#ctx, message);
  }

  storeMessages(batch: MessageInput[]): Promise<Message[]> {
    return messages.storeMessages(this.#ctx, batch);
  }

  getMessage(id: string, options?: ReadOptions): Promise<Message | null> {
    return messages.getMessage(this.#ctx, id, options);
  }

  flagMessage(id: string, flagged = true): Promise<Message> {
    return messages.flagMessage(this.#ctx, id, flagged);
  }

  softDeleteMessage(id: string): Promise<boolean> {
    return messages.softDeleteMessage(this.#ctx, id);
  }

  restoreMessage(id: string): Promise<boolean> {
    return messages.restoreMessage(this.#ctx, id);
  }

  deleteMessage(id: string): Promise<boolean> {
    return messages.deleteMessage(this.#ctx, id);
  }

  purgeDeleted(options: PurgeOptions): Promise<DeletedCounts> {
    return conversations.purgeDeleted(this.#ctx, options);
  }

  getMessagesByConversationId(
    conversationId: string,
    options: MessageListOptions = {},
  ): Promise<Page<Message>> {
    return messages.getMessagesByConversationId(this.#ctx, conversationId, options);
  }

  getImmediateContext(
    conversationId: string,
    n: number,
    options: ContextOptions = {},
  ): Promise<Message[]> {
    return messages.getImmediateContext(this.#ctx, conversationId, n, options);
  }

  storeSessionMessages(
    conversationId: string,
    turns: SessionTurn[],
    options: SessionOptions,
  ): Promise<Message[]> {
    return sessions.storeSessionMessages(this.#ctx, conversationId, turns, options);
  }

  loadSessionMessages(
    conversationId: string,
    options: LoadSessionOptions = {},
  ): Promise<Message[]> {
    return sessions.loadSessionMessages(this.#ctx, conversationId, options);
  }

  storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace> {
    return traces.storeTurnTrace(this.#ctx, trace);
  }

  storeTurnTraces(batch: TurnTraceInput[]): Promise<TurnTrace[]> {
    return traces.storeTurnTraces(this.#ctx, batch);
  }

  getTurnTraceByMessageId(messageId: string, options?: ReadOptions): Promise<TurnTrace | null> {
    return traces.getTurnTraceByMessageId(this.#ctx, messageId, options);
  }

  getTurnTracesByAgentId(
    agentId: string,
    options: AgentTraceOptions = {},
  ): Promise<Page<TurnTrace>> {
    return traces.getTurnTracesByAgentId(this.#ctx, agentId, options);
  }

  queryTurnTraces(query: TurnTraceQueryInput = {}): Promise<Page<TurnTrace>> {
    return traces.queryTurnTraces(this.#ctx, query);
  }

  summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]> {
    return traces.summarizeUsage(this.#ctx, query);
  }

  deleteUserData(userId: string, options: DeleteUserDataOptions = {}): Promise<DeletedCounts> {
    return conversations.deleteUserData(this.#ctx, userId, options);
  }

  searchMessages(query: SearchQueryInput): Promise<SearchHit[]> {
    return search.searchMessages(this.#ctx, query);
  }

  searchConversations(query: TextSearchQueryInput): Promise<Page<TextSearchHit>> {
    return search.searchConversations(this.#ctx, query);
  }

  listPendingEmbeddings(options: PendingEmbeddingsOptions = {}): Promise<Page<Message>> {
    return search.listPendingEmbeddings(this.#ctx, options);
  }

  setEmbeddings(updates: EmbeddingUpdateInput[]): Promise<number> {
    return search.setEmbeddings(this.#ctx, updates);
  }

  putCheckpoint(checkpoint: CheckpointInput, options: CheckpointPutOptions): Promise<void> {
    return checkpoints.putCheckpoint(this.#ctx, checkpoint, options);
  }

  putCheckpointWrites(writes: CheckpointWritesInput, options: SessionOptions): Promise<void> {
    return checkpoints.putCheckpointWrites(this.#ctx, writes, options);
  }

  getCheckpoint(
    conversationId: string,
    options: CheckpointReadOptions = {},
  ): Promise<StoredCheckpoint | null> {
    return checkpoints.getCheckpoint(this.#ctx, conversationId, options);
  }

  listCheckpoints(query: CheckpointQueryInput = {}): Promise<Page<StoredCheckpoint>> {
    return checkpoints.listCheckpoints(this.#ctx, query);
  }

  deleteCheckpoints(conversationId: string): Promise<boolean> {
    return checkpoints.deleteCheckpoints(this.#ctx, conversationId);
  }

  /** See {@link MessageStoreApi.forUser}. Throws `ValidationError` for an invalid id. */
  forUser(userId: string): MessageStore<D> {
    const ctx = this.#ctx;
    const id = ctx.id(userId, "user id");
    return this.#view(narrowScope(ctx.scope, "userId", id, ctx.name));
  }

  /**
   * See {@link MessageStoreApi.forTenant}. Throws `ValidationError` for an invalid id and
   * `UnsupportedOperationError` unless `capabilities.tenants`.
   */
  forTenant(tenantId: string): MessageStore<D> {
    const ctx = this.#ctx;
    const id = ctx.id(tenantId, "tenant id");
    ctx.require("tenants");
    return this.#view(narrowScope(ctx.scope, "tenantId", id, ctx.name));
  }

  /**
   * Waits for calls in flight, then releases everything the driver owns (a caller-owned pool or
   * client is left open). Idempotent: a second call resolves when the first finishes. Every other
   * method, of the store and of its views, rejects with `StoreClosedError` afterwards.
   */
  close(): Promise<void> {
    return this.#ctx.life.close();
  }

  [asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The same store with a narrower scope: the same driver and lifecycle. */
  #view(scope: Scope): MessageStore<D> {
    const view = new MessageStore(this.driver);
    view.#ctx = this.#ctx.withScope(scope);
    return view;
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
