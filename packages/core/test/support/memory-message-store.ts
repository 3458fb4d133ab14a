import {
  type ConversationKey,
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  compareTraceKeys,
  containsFolded,
  cosineSimilarity,
  foldAscii,
  type MessageKey,
  matchesTraceFilter,
  type PageRequest,
  type ReadRequest,
  type SequencedMessage,
  type StoreMessagesOptions,
  sliceAfter,
  summarizeTraces,
  type TraceKey,
} from "../../src/adapter.js";
import {
  type Conversation,
  type ConversationFilter,
  type ConversationRecord,
  type DeletedCounts,
  type EmbeddingUpdate,
  IntegrityError,
  type Message,
  MessageStore,
  type PendingEmbeddingsFilter,
  type SearchHit,
  type SearchQuery,
  type StoreCapabilities,
  type TextSearchFilter,
  type TextSearchHit,
  type TurnTrace,
  type TurnTraceFilter,
  type UsageBucket,
  type UsageQuery,
} from "../../src/index.js";

const ALL: StoreCapabilities = {
  semanticSearch: false,
  softDelete: true,
  tenants: true,
  embeddingQueue: true,
  textSearch: true,
};
const live = (r: { deletedAt: number | null }, o: { includeDeleted: boolean }) =>
  o.includeDeleted || r.deletedAt === null;

/**
 * A Map-based adapter that exercises core's plumbing (validation, paging, close, views) without a
 * database. It records every hook call so tests can prove what core did or did not delegate.
 * It keeps the ownership rules in their simplest form; the JSON adapter is the reference.
 */
export class MemoryMessageStore extends MessageStore {
  readonly adapterName = "memory";
  override readonly capabilities: StoreCapabilities;
  /** Hook names, in call order. */
  readonly hookCalls: string[] = [];
  /** The arguments of every hook call, in call order. */
  readonly hookArgs: unknown[][] = [];
  closeCount = 0;
  /** The page requests core handed to list hooks, in call order. */
  readonly pageRequests: PageRequest<unknown>[] = [];
  /** When set, every hook awaits it before doing its work. */
  gate: Promise<void> | null = null;

  readonly #conversations = new Map<
    string,
    ConversationRecord & { lastMessageAt: number | null }
  >();
  readonly #messages = new Map<string, SequencedMessage>();
  readonly #traces = new Map<string, TurnTrace>();
  #sequence = 0;

  constructor(capabilities: Partial<StoreCapabilities> = {}) {
    super();
    this.capabilities = { ...ALL, ...capabilities };
  }

  async #enter(hook: string, ...args: unknown[]): Promise<void> {
    this.hookCalls.push(hook);
    this.hookArgs.push(args);
    if (this.gate) await this.gate;
  }

  #view(id: string): Conversation | null {
    const c = this.#conversations.get(id);
    if (!c) return null;
    const { lastMessageAt, ...rest } = c;
    return { ...rest, lastActivityAt: Math.max(c.updatedAt, lastMessageAt ?? c.updatedAt) };
  }

  #conversationRows(filter: ConversationFilter, userId: string | null): Conversation[] {
    return [...this.#conversations.keys()]
      .map((id) => this.#view(id)!)
      .filter(
        (c) =>
          (userId === null || c.userId === userId) &&
          (filter.tenantId === undefined || c.tenantId === filter.tenantId) &&
          live(c, filter),
      );
  }

  protected async _storeConversation(c: ConversationRecord): Promise<Conversation> {
    await this.#enter("_storeConversation", c);
    const old = this.#conversations.get(c.id);
    if (old && (old.userId !== c.userId || old.tenantId !== c.tenantId))
      throw new IntegrityError(`conversation ${c.id} belongs to another owner`);
    this.#conversations.set(c.id, { ...c, lastMessageAt: old?.lastMessageAt ?? null });
    return this.#view(c.id)!;
  }
  protected async _getConversation(id: string, o: ReadRequest): Promise<Conversation | null> {
    await this.#enter("_getConversation", id, o);
    const c = this.#view(id);
    return c && live(c, o) ? c : null;
  }
  protected async _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
    filter: ConversationFilter,
  ): Promise<Conversation[]> {
    await this.#enter("_getConversationsByUserId", userId, page, filter);
    this.pageRequests.push(page);
    const rows = this.#conversationRows(filter, userId).sort(compareConversationKeys);
    return sliceAfter(rows, page, (c) => c, compareConversationKeys);
  }
  protected async _listConversations(
    userId: string | null,
    page: PageRequest<string>,
    filter: ConversationFilter,
  ): Promise<Conversation[]> {
    await this.#enter("_listConversations", userId, page, filter);
    this.pageRequests.push(page);
    const rows = this.#conversationRows(filter, userId).sort((a, b) => compareIds(a.id, b.id));
    return sliceAfter(rows, page, (c) => c.id, compareIds);
  }
  protected override async _searchConversations(
    filter: TextSearchFilter,
    page: PageRequest<ConversationKey>,
  ): Promise<TextSearchHit[]> {
    await this.#enter("_searchConversations", filter, page);
    this.pageRequests.push(page);
    const needle = foldAscii(filter.text);
    const hits: TextSearchHit[] = [];
    for (const conversation of this.#conversationRows(filter, filter.userId ?? null)) {
      const matches = this.#sorted(conversation.id, filter)
        .filter((m) => containsFolded(m.message.originalContent, needle))
        .reverse();
      const titleMatch = containsFolded(conversation.title, needle);
      if (titleMatch || matches.length > 0) {
        hits.push({ conversation, titleMatch, message: matches[0]?.message ?? null });
      }
    }
    hits.sort((a, b) => compareConversationKeys(a.conversation, b.conversation));
    return sliceAfter(hits, page, (h) => h.conversation, compareConversationKeys);
  }
  protected async _deleteConversation(id: string): Promise<boolean> {
    await this.#enter("_deleteConversation", id);
    for (const [key, m] of this.#messages) {
      if (m.message.conversationId === id) this.#removeMessage(key);
    }
    return this.#conversations.delete(id);
  }
  protected override async _softDeleteConversation(id: string, at: number): Promise<boolean> {
    await this.#enter("_softDeleteConversation", id, at);
    const c = this.#conversations.get(id);
    if (!c || c.deletedAt !== null) return false;
    c.deletedAt = at;
    for (const row of this.#messages.values()) {
      if (row.message.conversationId === id && row.message.deletedAt === null)
        row.message = { ...row.message, deletedAt: at };
    }
    return true;
  }
  protected override async _restoreConversation(id: string): Promise<boolean> {
    await this.#enter("_restoreConversation", id);
    const c = this.#conversations.get(id);
    if (!c || c.deletedAt === null) return false;
    for (const row of this.#messages.values()) {
      if (row.message.conversationId === id && row.message.deletedAt === c.deletedAt)
        row.message = { ...row.message, deletedAt: null };
    }
    c.deletedAt = null;
    return true;
  }
  protected async _storeMessages(
    messages: Message[],
    options: StoreMessagesOptions,
  ): Promise<Message[]> {
    await this.#enter("_storeMessages", messages, options);
    const ensure = options.ensureConversation;
    if (ensure && !this.#conversations.has(ensure.id))
      this.#conversations.set(ensure.id, { ...ensure, lastMessageAt: null });
    const stored = messages.map((m) => {
      const c = this.#conversations.get(m.conversationId);
      if (!c) throw new IntegrityError(`conversation ${m.conversationId} does not exist`);
      if (c.userId !== m.userId) throw new IntegrityError(`message ${m.id}: wrong user`);
      return { ...m, tenantId: c.tenantId };
    });
    for (const m of stored) {
      const sequence = this.#messages.get(m.id)?.sequence ?? ++this.#sequence;
      this.#messages.set(m.id, { message: m, sequence });
      const c = this.#conversations.get(m.conversationId)!;
      c.lastMessageAt = Math.max(c.lastMessageAt ?? m.timestamp, m.timestamp);
    }
    return stored;
  }
  protected async _getMessage(id: string, o: ReadRequest): Promise<Message | null> {
    await this.#enter("_getMessage", id, o);
    const m = this.#messages.get(id)?.message;
    return m && live(m, o) ? m : null;
  }
  protected async _flagMessage(id: string, flagged: boolean): Promise<Message | null> {
    await this.#enter("_flagMessage", id, flagged);
    const row = this.#messages.get(id);
    if (!row || row.message.deletedAt !== null) return null;
    row.message = { ...row.message, isFlagged: flagged };
    return row.message;
  }
  protected override async _softDeleteMessage(id: string, at: number): Promise<boolean> {
    await this.#enter("_softDeleteMessage", id, at);
    const row = this.#messages.get(id);
    if (!row || row.message.deletedAt !== null) return false;
    row.message = { ...row.message, deletedAt: at };
    return true;
  }
  protected override async _restoreMessage(id: string): Promise<boolean> {
    await this.#enter("_restoreMessage", id);
    const row = this.#messages.get(id);
    if (!row || row.message.deletedAt === null) return false;
    row.message = { ...row.message, deletedAt: null };
    return true;
  }
  protected async _deleteMessage(id: string): Promise<boolean> {
    await this.#enter("_deleteMessage", id);
    return this.#removeMessage(id);
  }
  #removeMessage(id: string): boolean {
    this.#traces.delete(id);
    return this.#messages.delete(id);
  }
  protected override async _purgeDeleted(
    before: number,
    scope: { userId?: string; tenantId?: string },
  ): Promise<DeletedCounts> {
    await this.#enter("_purgeDeleted", before, scope);
    return { conversations: 0, messages: 0, turnTraces: 0 };
  }
  #sorted(conversationId: string, o: ReadRequest): SequencedMessage[] {
    const key = (r: SequencedMessage): MessageKey => ({
      timestamp: r.message.timestamp,
      sequence: r.sequence,
    });
    return [...this.#messages.values()]
      .filter((r) => r.message.conversationId === conversationId && live(r.message, o))
      .sort((a, b) => compareMessageKeys(key(a), key(b)));
  }
  protected async _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
    o: ReadRequest,
  ): Promise<SequencedMessage[]> {
    await this.#enter("_getMessagesByConversationId", conversationId, page, o);
    this.pageRequests.push(page);
    return sliceAfter(
      this.#sorted(conversationId, o),
      page,
      (r) => ({ timestamp: r.message.timestamp, sequence: r.sequence }),
      compareMessageKeys,
    );
  }
  protected async _getImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    await this.#enter("_getImmediateContext", conversationId, n);
    const visible = this.#sorted(conversationId, { includeDeleted: false }).filter(
      (r) => !r.message.isFlagged,
    );
    return visible.slice(-n).map((r) => r.message);
  }
  protected async _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    await this.#enter("_storeTurnTrace", trace);
    const c = this.#conversations.get(trace.conversationId);
    const stored = { ...trace, userId: trace.userId ?? c?.userId ?? null };
    this.#traces.set(trace.messageId, stored);
    return stored;
  }
  protected async _getTurnTraceByMessageId(id: string, o: ReadRequest): Promise<TurnTrace | null> {
    await this.#enter("_getTurnTraceByMessageId", id, o);
    const t = this.#traces.get(id);
    return t && live(t, o) ? t : null;
  }
  protected async _queryTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    await this.#enter("_queryTurnTraces", filter, page);
    this.pageRequests.push(page);
    const rows = [...this.#traces.values()]
      .filter((t) => matchesTraceFilter(t, filter))
      .sort(compareTraceKeys);
    return sliceAfter(rows, page, (t) => t, compareTraceKeys);
  }
  protected async _summarizeUsage(query: UsageQuery): Promise<UsageBucket[]> {
    await this.#enter("_summarizeUsage", query);
    return summarizeTraces(this.#traces.values(), query);
  }
  protected async _deleteUserData(
    userId: string,
    filter: { tenantId?: string },
  ): Promise<DeletedCounts> {
    await this.#enter("_deleteUserData", userId, filter);
    return { conversations: 0, messages: 0, turnTraces: 0 };
  }
  protected override async _searchMessages(query: SearchQuery): Promise<SearchHit[]> {
    await this.#enter("_searchMessages", query);
    const hits: SearchHit[] = [];
    for (const { message } of this.#messages.values()) {
      if (message.isFlagged || message.embedding === null) continue;
      if (query.userId !== undefined && message.userId !== query.userId) continue;
      const score = cosineSimilarity(message.embedding, query.embedding);
      if (score !== null) hits.push({ message, score });
    }
    return hits;
  }
  protected override async _listPendingEmbeddings(
    filter: PendingEmbeddingsFilter,
    page: PageRequest<string>,
  ): Promise<Message[]> {
    await this.#enter("_listPendingEmbeddings", filter, page);
    const rows = [...this.#messages.values()]
      .map((r) => r.message)
      .filter(
        (m) =>
          m.embedding === null &&
          m.deletedAt === null &&
          filter.roles.includes(m.role) &&
          (filter.includeFlagged || !m.isFlagged),
      )
      .sort((a, b) => compareIds(a.id, b.id));
    return sliceAfter(rows, page, (m) => m.id, compareIds);
  }
  protected override async _setEmbeddings(updates: EmbeddingUpdate[]): Promise<number> {
    await this.#enter("_setEmbeddings", updates);
    let set = 0;
    for (const u of updates) {
      const row = this.#messages.get(u.id);
      if (!row || row.message.originalContent !== u.originalContent) continue;
      row.message = { ...row.message, embedding: u.embedding };
      set++;
    }
    return set;
  }
  protected async _close(): Promise<void> {
    this.hookCalls.push("_close");
    this.closeCount++;
  }
}
