import { z } from "zod";
import {
  fastBatch,
  fastContextSize,
  fastMessage,
  fastNoOptions,
  fastTrace,
  MAX_BATCH,
  MAX_CONTEXT,
} from "./canonical/input-fast-paths.js";
import { compressMessages } from "./context/compress-messages.js";
import {
  isMessageStoreError,
  StoreClosedError,
  stampAdapter,
  UnsupportedOperationError,
  ValidationError,
} from "./errors.js";
import { openStore } from "./factory/open-store.js";
import type { StoreConfig } from "./factory/storage-config-map.js";
import type { MessageStoreApi } from "./message-store-api.js";
import { MessageStoreHooks } from "./message-store-hooks.js";
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
  type DeletedCounts,
  type ListConversationsOptions,
  ListConversationsOptionsSchema,
  type Page,
  type PageOptions,
  PageOptionsSchema,
  type SearchHit,
  type SearchQueryInput,
  SearchQuerySchema,
  type TurnTraceQueryInput,
  TurnTraceQuerySchema,
  type UsageBucket,
  type UsageQueryInput,
  UsageQuerySchema,
} from "./models/queries.js";
import { type TurnTrace, type TurnTraceInput, TurnTraceSchema } from "./models/turn-trace.js";
import { cursors } from "./paging/cursor.js";
import { compareIds } from "./paging/ordering.js";
import { toPage } from "./paging/page-request.js";
import { UserScopedStore } from "./scoped/user-scoped-store.js";
import { parseId, parseInput } from "./validation.js";

const MessageBatchSchema = z.array(MessageSchema).max(MAX_BATCH);
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
    return this.#run(() => this._storeConversation(record));
  }

  async getConversation(id: string): Promise<Conversation | null> {
    const key = this.#id(id, "conversation id");
    return this.#run(() => this._getConversation(key));
  }

  async getConversationsByUserId(
    userId: string,
    options: PageOptions = {},
  ): Promise<Page<Conversation>> {
    const key = this.#id(userId, "user id");
    const { limit, after } = this.#paging(options, cursors.conversation.decode);
    const rows = await this.#run(() =>
      this._getConversationsByUserId(key, { after, take: take(limit) }),
    );
    return toPage(
      rows,
      limit,
      (c) => c,
      (c) => cursors.conversation.encode(c),
    );
  }

  async listConversations(options: ListConversationsOptions = {}): Promise<Page<Conversation>> {
    const { userId, ...page } = this.#parse(
      ListConversationsOptionsSchema,
      options,
      "list options",
    );
    const { limit, after } = this.#paging(page, cursors.conversationId.decode);
    const rows = await this.#run(() =>
      this._listConversations(userId ?? null, { after, take: take(limit) }),
    );
    return toPage(
      rows,
      limit,
      (c) => c,
      (c) => cursors.conversationId.encode(c.id),
    );
  }

  async deleteConversation(id: string): Promise<boolean> {
    const key = this.#id(id, "conversation id");
    return this.#run(() => this._deleteConversation(key));
  }

  async storeMessage(message: MessageInput): Promise<Message> {
    const record = this.#parse(MessageSchema, message, "message", fastMessage);
    const [stored] = await this.#run(() => this._storeMessages([record]));
    return stored!;
  }

  async storeMessages(messages: MessageInput[]): Promise<Message[]> {
    const records = this.#parse(MessageBatchSchema, messages, "messages", fastBatch);
    const seen = new Set<string>();
    for (const [i, m] of records.entries()) {
      if (seen.has(m.id)) {
        throw new ValidationError(
          `invalid messages at ${i}.id: id ${JSON.stringify(m.id)} appears twice in the batch`,
          [{ path: [i, "id"], message: "duplicate id in batch" }],
          { adapter: this.adapterName },
        );
      }
      seen.add(m.id);
    }
    if (records.length === 0) {
      this.#assertOpen();
      return [];
    }
    return this.#run(() => this._storeMessages(records));
  }

  async getMessage(id: string): Promise<Message | null> {
    const key = this.#id(id, "message id");
    return this.#run(() => this._getMessage(key));
  }

  async flagMessage(id: string, flagged = true): Promise<Message> {
    const key = this.#id(id, "message id");
    const value = this.#parse(z.boolean(), flagged, "flagged");
    const updated = await this.#run(() => this._flagMessage(key, value));
    if (updated === null) throw this.notFound(`message ${JSON.stringify(key)} does not exist`);
    return updated;
  }

  async getMessagesByConversationId(
    conversationId: string,
    options: PageOptions = {},
  ): Promise<Page<Message>> {
    const key = this.#id(conversationId, "conversation id");
    const { limit, after } = this.#paging(options, cursors.message.decode);
    const rows = await this.#run(() =>
      this._getMessagesByConversationId(key, { after, take: take(limit) }),
    );
    return toPage(
      rows,
      limit,
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
    if (count === 0) {
      this.#assertOpen();
      return [];
    }
    const messages = await this.#run(() => this._getImmediateContext(key, count));
    return compress ? compressMessages(messages, compress) : messages;
  }

  async storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace> {
    const record = this.#parse(TurnTraceSchema, trace, "turn trace", fastTrace);
    return this.#run(() => this._storeTurnTrace(record));
  }

  async getTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    const key = this.#id(messageId, "message id");
    return this.#run(() => this._getTurnTraceByMessageId(key));
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
    const {
      limit: rawLimit,
      cursor,
      ...filter
    } = this.#parse(TurnTraceQuerySchema, query, "trace query");
    const { limit, after } = this.#paging({ limit: rawLimit, cursor }, cursors.trace.decode);
    const rows = await this.#run(() => this._queryTurnTraces(filter, { after, take: take(limit) }));
    return toPage(
      rows,
      limit,
      (t) => t,
      (t) => cursors.trace.encode(t),
    );
  }

  async summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]> {
    const parsed = this.#parse(UsageQuerySchema, query, "usage query");
    return this.#run(() => this._summarizeUsage(parsed));
  }

  async deleteUserData(userId: string): Promise<DeletedCounts> {
    const key = this.#id(userId, "user id");
    return this.#run(() => this._deleteUserData(key));
  }

  async searchMessages(query: SearchQueryInput): Promise<SearchHit[]> {
    const parsed = this.#parse(SearchQuerySchema, query, "search query");
    if (!this.capabilities.semanticSearch) {
      throw new UnsupportedOperationError("this adapter does not support semantic search", {
        adapter: this.adapterName,
      });
    }
    const hits = await this.#run(() => this._searchMessages(parsed));
    return hits
      .map((h) => ({ message: h.message, score: Math.round(h.score * 1e9) / 1e9 }))
      .sort((a, b) => b.score - a.score || compareIds(a.message.id, b.message.id))
      .slice(0, parsed.limit);
  }

  /**
   * A view confined to one user's conversations: another user's conversation reads as not found
   * (`null`, empty pages) and writing into it throws `NotFoundError`. The view shares this store's
   * connection and lifetime; close the store, not the view. Costs one extra read per call to check
   * ownership.
   */
  forUser(userId: string): MessageStoreApi {
    return new UserScopedStore(this, this.#id(userId, "user id"));
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

  #paging<K>(
    options: PageOptions,
    decode: (cursor: string) => K,
  ): { limit: number | null; after: K | null } {
    const parsed = this.#parse(PageOptionsSchema, options, "page options");
    let after: K | null = null;
    if (parsed.cursor) {
      try {
        after = decode(parsed.cursor);
      } catch (error) {
        const e = error as ValidationError;
        throw new ValidationError(e.message.replace(/^\[message-store\] /, ""), e.issues, {
          adapter: this.adapterName,
        });
      }
    }
    return { limit: parsed.limit ?? null, after };
  }
}

function take(limit: number | null): number | null {
  return limit === null ? null : limit + 1;
}
