import { z } from "zod";
import { NotFoundError, StoreClosedError, ValidationError } from "../errors.js";
import type { MessageStoreApi, StoreCapabilities } from "../message-store-api.js";
import {
  type Conversation,
  type ConversationInput,
  ConversationInputSchema,
} from "../models/conversation.js";
import { type Message, type MessageInput, MessageSchema } from "../models/message.js";
import type {
  AgentTraceOptions,
  ContextOptions,
  DeletedCounts,
  ListConversationsOptions,
  Page,
  PageOptions,
  SearchHit,
  SearchQueryInput,
  TurnTraceQueryInput,
  UsageBucket,
  UsageQueryInput,
} from "../models/queries.js";
import {
  ContextOptionsSchema,
  ListConversationsOptionsSchema,
  PageOptionsSchema,
  SearchQuerySchema,
  TurnTraceQuerySchema,
  UsageQuerySchema,
} from "../models/queries.js";
import type { TurnTrace, TurnTraceInput } from "../models/turn-trace.js";
import { TurnTraceSchema } from "../models/turn-trace.js";
import { parseId, parseInput } from "../validation.js";

/** The store a view confines: its public API, and whether it is closed. */
export interface ScopableStore extends MessageStoreApi {
  readonly closed: boolean;
  readonly adapterName: string;
}

const EMPTY: Page<never> = Object.freeze({ items: [], nextCursor: null }) as Page<never>;

/**
 * `store.forUser(userId)`: every call is confined to conversations whose `userId` is the scoped
 * user. Reads of anything else look exactly like reads of something that does not exist; writes
 * into it throw `NotFoundError` without saying whether it exists. Built on the public API of the
 * underlying store, so it behaves identically on every adapter.
 */
export class UserScopedStore implements MessageStoreApi {
  constructor(
    private readonly store: ScopableStore,
    readonly userId: string,
  ) {}

  get capabilities(): StoreCapabilities {
    return this.store.capabilities;
  }

  async #owns(conversationId: string): Promise<boolean> {
    const c = await this.store.getConversation(conversationId);
    return c !== null && c.userId === this.userId;
  }

  /** Checks each distinct conversation once; resolves to the set this user owns. */
  async #owned(conversationIds: Iterable<string>): Promise<Set<string>> {
    const ids = [...new Set(conversationIds)];
    const owned = await Promise.all(ids.map((id) => this.#owns(id)));
    return new Set(ids.filter((_, i) => owned[i]));
  }

  /** Validates like the store does (closed check first), so a view rejects exactly what the store rejects. */
  #parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
    if (this.store.closed) throw new StoreClosedError({ adapter: this.store.adapterName });
    return parseInput(schema, value, what, this.store.adapterName);
  }

  #id(value: unknown, what: string): string {
    if (this.store.closed) throw new StoreClosedError({ adapter: this.store.adapterName });
    return parseId(value, what, this.store.adapterName);
  }

  #notFound(what: string): NotFoundError {
    return new NotFoundError(`${what} does not exist`, { adapter: this.store.adapterName });
  }

  async storeConversation(conversation: ConversationInput): Promise<Conversation> {
    this.#parse(ConversationInputSchema, conversation, "conversation");
    if (conversation.userId !== this.userId) {
      throw new ValidationError(
        `invalid conversation at userId: a view for one user can only store that user's conversations`,
        [{ path: ["userId"], message: "must be the scoped user" }],
      );
    }
    const existing = await this.store.getConversation(conversation.id);
    if (existing && existing.userId !== this.userId)
      throw this.#notFound(`conversation ${JSON.stringify(conversation.id)}`);
    return this.store.storeConversation(conversation);
  }

  async getConversation(id: string): Promise<Conversation | null> {
    const c = await this.store.getConversation(id);
    return c && c.userId === this.userId ? c : null;
  }

  async getConversationsByUserId(
    userId: string,
    options?: PageOptions,
  ): Promise<Page<Conversation>> {
    this.#parse(PageOptionsSchema, options ?? {}, "page options");
    if (this.#id(userId, "user id") !== this.userId) return EMPTY;
    return this.store.getConversationsByUserId(userId, options);
  }

  async listConversations(options: ListConversationsOptions = {}): Promise<Page<Conversation>> {
    const parsed = this.#parse(ListConversationsOptionsSchema, options, "list options");
    if (parsed.userId !== undefined && parsed.userId !== this.userId) return EMPTY;
    return this.store.listConversations({ ...options, userId: this.userId });
  }

  async deleteConversation(id: string): Promise<boolean> {
    this.#id(id, "conversation id");
    return (await this.#owns(id)) ? this.store.deleteConversation(id) : false;
  }

  async storeMessage(message: MessageInput): Promise<Message> {
    const [stored] = await this.storeMessages([message]);
    return stored!;
  }

  async storeMessages(messages: MessageInput[]): Promise<Message[]> {
    const parsed = this.#parse(z.array(MessageSchema), messages, "messages");
    const ids = parsed.map((m) => m.conversationId);
    const owned = await this.#owned(ids);
    const foreign = ids.find((id) => !owned.has(id));
    if (foreign !== undefined) throw this.#notFound(`conversation ${JSON.stringify(foreign)}`);
    // An upsert must not move another user's message into this user's conversation either.
    const existing = await Promise.all(parsed.map((m) => this.store.getMessage(m.id)));
    const stranger = existing.find((m) => m !== null && !owned.has(m.conversationId));
    if (stranger) throw this.#notFound(`message ${JSON.stringify(stranger.id)}`);
    return this.store.storeMessages(messages);
  }

  async getMessage(id: string): Promise<Message | null> {
    const m = await this.store.getMessage(id);
    return m && (await this.#owns(m.conversationId)) ? m : null;
  }

  async flagMessage(id: string, flagged?: boolean): Promise<Message> {
    this.#id(id, "message id");
    this.#parse(z.boolean().optional(), flagged, "flagged");
    const m = await this.getMessage(id);
    if (!m) throw this.#notFound(`message ${JSON.stringify(id)}`);
    return this.store.flagMessage(id, flagged);
  }

  async getMessagesByConversationId(
    conversationId: string,
    options?: PageOptions,
  ): Promise<Page<Message>> {
    this.#id(conversationId, "conversation id");
    this.#parse(PageOptionsSchema, options ?? {}, "page options");
    if (!(await this.#owns(conversationId))) return EMPTY;
    return this.store.getMessagesByConversationId(conversationId, options);
  }

  async getImmediateContext(
    conversationId: string,
    n: number,
    options?: ContextOptions,
  ): Promise<Message[]> {
    this.#id(conversationId, "conversation id");
    this.#parse(z.number().int().min(0), n, "n");
    this.#parse(ContextOptionsSchema, options ?? {}, "context options");
    if (!(await this.#owns(conversationId))) return [];
    return this.store.getImmediateContext(conversationId, n, options);
  }

  async storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace> {
    this.#parse(TurnTraceSchema, trace, "turn trace");
    if (trace.userId != null && trace.userId !== this.userId) {
      throw new ValidationError("invalid turn trace at userId: must be the scoped user or null", [
        { path: ["userId"], message: "must be the scoped user" },
      ]);
    }
    if (!(await this.#owns(trace.conversationId)))
      throw this.#notFound(`conversation ${JSON.stringify(trace.conversationId)}`);
    return this.store.storeTurnTrace({ ...trace, userId: this.userId });
  }

  async getTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    const t = await this.store.getTurnTraceByMessageId(messageId);
    return t && (await this.#owns(t.conversationId)) ? t : null;
  }

  getTurnTracesByAgentId(
    agentId: string,
    options: AgentTraceOptions = {},
  ): Promise<Page<TurnTrace>> {
    return this.queryTurnTraces({ ...options, agentId });
  }

  async queryTurnTraces(query: TurnTraceQueryInput = {}): Promise<Page<TurnTrace>> {
    this.#parse(TurnTraceQuerySchema, query, "trace query");
    if (query.userId !== undefined && query.userId !== this.userId) return EMPTY;
    const page = await this.store.queryTurnTraces({ ...query, userId: this.userId });
    const owned = await this.#owned(page.items.map((t) => t.conversationId));
    return {
      items: page.items.filter((t) => owned.has(t.conversationId)),
      nextCursor: page.nextCursor,
    };
  }

  async summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]> {
    this.#parse(UsageQuerySchema, query, "usage query");
    if (query.userId !== undefined && query.userId !== this.userId) return [];
    return this.store.summarizeUsage({ ...query, userId: this.userId });
  }

  async deleteUserData(userId: string): Promise<DeletedCounts> {
    if (this.#id(userId, "user id") !== this.userId)
      return { conversations: 0, messages: 0, turnTraces: 0 };
    return this.store.deleteUserData(userId);
  }

  async searchMessages(query: SearchQueryInput): Promise<SearchHit[]> {
    this.#parse(SearchQuerySchema, query, "search query");
    const hits = await this.store.searchMessages(query);
    const owned = await this.#owned(hits.map((h) => h.message.conversationId));
    return hits.filter((h) => owned.has(h.message.conversationId));
  }
}
