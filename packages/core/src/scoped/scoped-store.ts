import { z } from "zod";
import { MAX_BATCH, MAX_CONTEXT } from "../canonical/input-fast-paths.js";
import { requireCapability } from "../capabilities.js";
import { NotFoundError, StoreClosedError } from "../errors.js";
import type { MessageStoreApi, StoreCapabilities } from "../message-store-api.js";
import {
  type Conversation,
  type ConversationInput,
  ConversationInputSchema,
} from "../models/conversation.js";
import { type Message, type MessageInput, MessageSchema } from "../models/message.js";
import {
  type AgentTraceOptions,
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
import { parseId, parseInput, rejectDuplicateIds } from "../validation.js";
import { inScope, narrowScope, ownerValue, scopedFilter } from "./scope.js";
import { ViewGuard } from "./view-guard.js";

/** The store a view confines: its public API, and whether it is closed. */
export interface ScopableStore extends MessageStoreApi {
  readonly closed: boolean;
  readonly adapterName: string;
}

const EMPTY: Page<never> = Object.freeze({ items: [], nextCursor: null }) as Page<never>;
const NOTHING: DeletedCounts = Object.freeze({ conversations: 0, messages: 0, turnTraces: 0 });
const WITH_DELETED = { includeDeleted: true } as const;
const ContextSizeSchema = z.number().int().min(0).max(MAX_CONTEXT);
const q = JSON.stringify;

/**
 * `store.forUser(userId)`, `store.forTenant(tenantId)` and their compositions: every call is
 * confined to the records of the scope, decided by each record's own `userId` and `tenantId`
 * (which the store's ownership rules keep equal to its conversation's). Built on the public API
 * of the underlying store, so it behaves identically on every adapter:
 *
 * - Reads by id read the record and hide it when it is out of scope (one call, no extra read).
 * - Lists, analytics, search and erasure pass the scope down as filters, so the backend filters
 *   before paging and ranking: a page is never filtered afterwards.
 * - Writes set the scope's owner on the record (a different one is a `ValidationError`) and rely
 *   on the store's atomic rules to refuse another owner's conversation, message or trace; the
 *   refusal (`IntegrityError`) reaches the caller as `NotFoundError` when an out-of-scope record
 *   caused it. Deletes, restores and flags by id check the record first; its owner never changes.
 *   On a store without `capabilities.tenants` (rules not enforced by the store), writes check
 *   ownership with a read first ({@link ViewGuard}).
 */
export class ScopedStore implements MessageStoreApi {
  readonly #guard: ViewGuard;

  constructor(
    private readonly store: ScopableStore,
    readonly scope: Scope,
  ) {
    this.#guard = new ViewGuard(store, scope);
  }

  get capabilities(): StoreCapabilities {
    return this.store.capabilities;
  }

  forUser(userId: string): MessageStoreApi {
    const id = this.#id(userId, "user id");
    return new ScopedStore(this.store, narrowScope(this.scope, "userId", id, this.#adapter));
  }

  forTenant(tenantId: string): MessageStoreApi {
    const id = this.#id(tenantId, "tenant id");
    requireCapability(this.capabilities, "tenants", this.#adapter);
    return new ScopedStore(this.store, narrowScope(this.scope, "tenantId", id, this.#adapter));
  }

  // ---- conversations ----

  async storeConversation(conversation: ConversationInput): Promise<Conversation> {
    const record = this.#parse(ConversationInputSchema, conversation, "conversation");
    const { tenantId } = this.#owners(record, "conversation");
    const owned = { ...record, tenantId };
    await this.#guard.before({ conversationIds: [owned.id], creates: true });
    return this.#guard.refusal(this.store.storeConversation(owned), {
      conversationIds: [owned.id],
    });
  }

  async getConversation(id: string, options?: ReadOptions): Promise<Conversation | null> {
    const c = await this.store.getConversation(id, options);
    return c && inScope(c, this.scope) ? c : null;
  }

  async getConversationsByUserId(
    userId: string,
    options: ConversationListOptions = {},
  ): Promise<Page<Conversation>> {
    const user = this.#id(userId, "user id");
    const parsed = this.#parse(ConversationListOptionsSchema, options, "page options");
    const filter = scopedFilter({ userId: user, tenantId: parsed.tenantId }, this.scope);
    if (!filter) return EMPTY;
    return this.store.getConversationsByUserId(user, { ...options, ...tenant(filter) });
  }

  async listConversations(options: ListConversationsOptions = {}): Promise<Page<Conversation>> {
    const parsed = this.#parse(ListConversationsOptionsSchema, options, "list options");
    const filter = scopedFilter(parsed, this.scope);
    return filter ? this.store.listConversations({ ...options, ...filter }) : EMPTY;
  }

  async deleteConversation(id: string): Promise<boolean> {
    return (await this.#ownsConversation(id)) && this.store.deleteConversation(id);
  }

  async softDeleteConversation(id: string): Promise<boolean> {
    requireCapability(this.capabilities, "softDelete", this.#adapter);
    return (await this.#ownsConversation(id)) && this.store.softDeleteConversation(id);
  }

  async restoreConversation(id: string): Promise<boolean> {
    requireCapability(this.capabilities, "softDelete", this.#adapter);
    return (await this.#ownsConversation(id)) && this.store.restoreConversation(id);
  }

  // ---- messages ----

  async storeMessage(message: MessageInput): Promise<Message> {
    const [stored] = await this.storeMessages([message]);
    return stored!;
  }

  async storeMessages(messages: MessageInput[]): Promise<Message[]> {
    const parsed = this.#parse(MessageSchema.array(), messages, "messages");
    const owned = parsed.map((m) => ({ ...m, tenantId: this.#owners(m, "message").tenantId }));
    const ids = {
      conversationIds: owned.map((m) => m.conversationId),
      messageIds: owned.map((m) => m.id),
    };
    await this.#guard.before(ids);
    return this.#guard.refusal(this.store.storeMessages(owned), ids);
  }

  async getMessage(id: string, options?: ReadOptions): Promise<Message | null> {
    const m = await this.store.getMessage(id, options);
    return m && inScope(m, this.scope) ? m : null;
  }

  async flagMessage(id: string, flagged?: boolean): Promise<Message> {
    this.#id(id, "message id");
    const m = await this.store.getMessage(id);
    if (!m || !inScope(m, this.scope)) throw this.#notFound(`message ${q(id)}`);
    return this.store.flagMessage(id, flagged);
  }

  async softDeleteMessage(id: string): Promise<boolean> {
    requireCapability(this.capabilities, "softDelete", this.#adapter);
    return (await this.#ownsMessage(id)) && this.store.softDeleteMessage(id);
  }

  async restoreMessage(id: string): Promise<boolean> {
    requireCapability(this.capabilities, "softDelete", this.#adapter);
    return (await this.#ownsMessage(id)) && this.store.restoreMessage(id);
  }

  async deleteMessage(id: string): Promise<boolean> {
    return (await this.#ownsMessage(id)) && this.store.deleteMessage(id);
  }

  async purgeDeleted(options: PurgeOptions): Promise<DeletedCounts> {
    const parsed = this.#parse(PurgeOptionsSchema, options, "purge options");
    const filter = scopedFilter(parsed, this.scope);
    return filter ? this.store.purgeDeleted({ before: parsed.before, ...filter }) : NOTHING;
  }

  async getMessagesByConversationId(
    conversationId: string,
    options: MessageListOptions = {},
  ): Promise<Page<Message>> {
    this.#parse(MessageListOptionsSchema, options, "page options");
    if (!(await this.#ownsConversation(conversationId))) return EMPTY;
    return this.store.getMessagesByConversationId(conversationId, options);
  }

  async getImmediateContext(
    conversationId: string,
    n: number,
    options: ContextOptions = {},
  ): Promise<Message[]> {
    this.#parse(ContextSizeSchema, n, "n");
    this.#parse(ContextOptionsSchema, options, "context options");
    if (!(await this.#ownsConversation(conversationId))) return [];
    return this.store.getImmediateContext(conversationId, n, options);
  }

  async storeSessionMessages(
    conversationId: string,
    turns: SessionTurn[],
    options: SessionOptions,
  ): Promise<Message[]> {
    this.#id(conversationId, "conversation id");
    const parsed = this.#parse(SessionOptionsSchema, options, "session options");
    const { tenantId } = this.#owners(parsed, "session options");
    const session = tenantId === null ? options : { ...options, tenantId };
    const ids = { conversationIds: [conversationId], creates: true };
    await this.#guard.before(ids);
    return this.#guard.refusal(
      this.store.storeSessionMessages(conversationId, turns, session),
      ids,
    );
  }

  async loadSessionMessages(
    conversationId: string,
    options: LoadSessionOptions = {},
  ): Promise<Message[]> {
    this.#parse(LoadSessionOptionsSchema, options, "load options");
    if (!(await this.#ownsConversation(conversationId))) return [];
    return this.store.loadSessionMessages(conversationId, options);
  }

  // ---- traces and analytics ----

  async storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace> {
    const record = this.#parse(TurnTraceSchema, trace, "turn trace");
    const owned = { ...record, ...this.#owners(record, "turn trace") };
    await this.#guard.before({ conversationIds: [owned.conversationId] });
    return this.#guard.refusal(this.store.storeTurnTrace(owned), {
      conversationIds: [owned.conversationId],
      messageIds: [owned.messageId],
      trace: owned,
    });
  }

  /** One by one through {@link storeTurnTrace}, so each refusal is answered as the view's own. */
  async storeTurnTraces(traces: TurnTraceInput[]): Promise<TurnTrace[]> {
    // The store's batch limit, although the view writes one by one: a view refuses what the
    // store would.
    const records = this.#parse(TurnTraceSchema.array().max(MAX_BATCH), traces, "turn traces");
    rejectDuplicateIds(records, "turn traces", this.#adapter);
    const stored: TurnTrace[] = [];
    for (const trace of records) stored.push(await this.storeTurnTrace(trace));
    return stored;
  }

  async getTurnTraceByMessageId(
    messageId: string,
    options?: ReadOptions,
  ): Promise<TurnTrace | null> {
    const t = await this.store.getTurnTraceByMessageId(messageId, options);
    return t && inScope(t, this.scope) ? t : null;
  }

  getTurnTracesByAgentId(
    agentId: string,
    options: AgentTraceOptions = {},
  ): Promise<Page<TurnTrace>> {
    return this.queryTurnTraces({ ...options, agentId });
  }

  async queryTurnTraces(query: TurnTraceQueryInput = {}): Promise<Page<TurnTrace>> {
    const parsed = this.#parse(TurnTraceQuerySchema, query, "trace query");
    const filter = scopedFilter(parsed, this.scope);
    return filter ? this.store.queryTurnTraces({ ...query, ...filter }) : EMPTY;
  }

  async summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]> {
    const parsed = this.#parse(UsageQuerySchema, query, "usage query");
    const filter = scopedFilter(parsed, this.scope);
    return filter ? this.store.summarizeUsage({ ...query, ...filter }) : [];
  }

  async deleteUserData(
    userId: string,
    options: DeleteUserDataOptions = {},
  ): Promise<DeletedCounts> {
    const user = this.#id(userId, "user id");
    const parsed = this.#parse(DeleteUserDataOptionsSchema, options, "erasure options");
    const filter = scopedFilter({ userId: user, tenantId: parsed.tenantId }, this.scope);
    return filter ? this.store.deleteUserData(user, tenant(filter)) : NOTHING;
  }

  async searchMessages(query: SearchQueryInput): Promise<SearchHit[]> {
    const parsed = this.#parse(SearchQuerySchema, query, "search query");
    const filter = scopedFilter(parsed, this.scope);
    return filter ? this.store.searchMessages({ ...query, ...filter }) : [];
  }

  async searchConversations(query: TextSearchQueryInput): Promise<Page<TextSearchHit>> {
    const parsed = this.#parse(TextSearchQuerySchema, query, "text search");
    requireCapability(this.capabilities, "textSearch", this.#adapter);
    const filter = scopedFilter(parsed, this.scope);
    return filter ? this.store.searchConversations({ ...query, ...filter }) : EMPTY;
  }

  // ---- embedding queue ----

  async listPendingEmbeddings(options: PendingEmbeddingsOptions = {}): Promise<Page<Message>> {
    const parsed = this.#parse(
      PendingEmbeddingsOptionsSchema,
      options,
      "pending embeddings options",
    );
    const filter = scopedFilter(parsed, this.scope);
    return filter ? this.store.listPendingEmbeddings({ ...options, ...filter }) : EMPTY;
  }

  /** Sets only the embeddings of messages in the view (each checked first; owners never change). */
  async setEmbeddings(updates: EmbeddingUpdateInput[]): Promise<number> {
    requireCapability(this.capabilities, "embeddingQueue", this.#adapter);
    const ids = this.#parse(EmbeddingUpdateSchema.array(), updates, "embedding updates").map(
      (u) => u.id,
    );
    const owned = await Promise.all(ids.map((id) => this.#ownsMessage(id)));
    return this.store.setEmbeddings(updates.filter((_, i) => owned[i]));
  }

  // ---- plumbing ----

  get #adapter(): string {
    return this.store.adapterName;
  }

  async #ownsConversation(id: string): Promise<boolean> {
    this.#id(id, "conversation id");
    const c = await this.store.getConversation(id, WITH_DELETED);
    return c !== null && inScope(c, this.scope);
  }

  async #ownsMessage(id: string): Promise<boolean> {
    this.#id(id, "message id");
    const m = await this.store.getMessage(id, WITH_DELETED);
    return m !== null && inScope(m, this.scope);
  }

  /** The owner fields a record written through the view gets (see `ownerValue`). */
  #owners(
    record: { userId?: string | null; tenantId?: string | null },
    what: string,
  ): { userId: string | null; tenantId: string | null } {
    return {
      userId: ownerValue(record.userId, this.scope.userId, "userId", what, this.#adapter),
      tenantId: ownerValue(record.tenantId, this.scope.tenantId, "tenantId", what, this.#adapter),
    };
  }

  /** Validates like the store does (closed check first), so a view rejects exactly what the store rejects. */
  #parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
    if (this.store.closed) throw new StoreClosedError({ adapter: this.#adapter });
    return parseInput(schema, value, what, this.#adapter);
  }

  #id(value: unknown, what: string): string {
    if (this.store.closed) throw new StoreClosedError({ adapter: this.#adapter });
    return parseId(value, what, this.#adapter);
  }

  #notFound(what: string): NotFoundError {
    return new NotFoundError(`${what} does not exist`, { adapter: this.#adapter });
  }
}

function tenant(filter: Scope): { tenantId?: string } {
  return filter.tenantId === undefined ? {} : { tenantId: filter.tenantId };
}
