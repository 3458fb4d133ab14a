import {
  type ConversationKey,
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  compareTraceKeys,
  cosineSimilarity,
  type MessageKey,
  matchesTraceFilter,
  type PageRequest,
  type SequencedMessage,
  sliceAfter,
  summarizeTraces,
  type TraceKey,
} from "../../src/adapter.js";
import {
  type Conversation,
  type ConversationRecord,
  type DeletedCounts,
  IntegrityError,
  type Message,
  MessageStore,
  type SearchHit,
  type SearchQuery,
  type StoreCapabilities,
  type TurnTrace,
  type TurnTraceFilter,
  type UsageBucket,
  type UsageQuery,
} from "../../src/index.js";

/**
 * A Map-based adapter that exercises core's plumbing (validation, paging, close) without a
 * database. It records every hook call so tests can prove what core did or did not delegate.
 */
export class MemoryMessageStore extends MessageStore {
  readonly adapterName = "memory";
  override readonly capabilities: StoreCapabilities;
  /** Hook names, in call order. */
  readonly hookCalls: string[] = [];
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

  constructor(capabilities: StoreCapabilities = { semanticSearch: false }) {
    super();
    this.capabilities = capabilities;
  }

  async #enter(hook: string): Promise<void> {
    this.hookCalls.push(hook);
    if (this.gate) await this.gate;
  }

  #view(id: string): Conversation | null {
    const c = this.#conversations.get(id);
    if (!c) return null;
    const { lastMessageAt, ...rest } = c;
    return { ...rest, lastActivityAt: Math.max(c.updatedAt, lastMessageAt ?? c.updatedAt) };
  }

  protected async _storeConversation(c: ConversationRecord): Promise<Conversation> {
    await this.#enter("_storeConversation");
    const lastMessageAt = this.#conversations.get(c.id)?.lastMessageAt ?? null;
    this.#conversations.set(c.id, { ...c, lastMessageAt });
    return this.#view(c.id)!;
  }
  protected async _getConversation(id: string): Promise<Conversation | null> {
    await this.#enter("_getConversation");
    return this.#view(id);
  }
  protected async _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]> {
    await this.#enter("_getConversationsByUserId");
    this.pageRequests.push(page);
    const rows = [...this.#conversations.keys()]
      .map((id) => this.#view(id)!)
      .filter((c) => c.userId === userId)
      .sort(compareConversationKeys);
    return sliceAfter(rows, page, (c) => c, compareConversationKeys);
  }
  protected async _listConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]> {
    await this.#enter("_listConversations");
    this.pageRequests.push(page);
    const rows = [...this.#conversations.keys()]
      .map((id) => this.#view(id)!)
      .filter((c) => userId === null || c.userId === userId)
      .sort((a, b) => compareIds(a.id, b.id));
    return sliceAfter(rows, page, (c) => c.id, compareIds);
  }
  protected async _deleteConversation(id: string): Promise<boolean> {
    await this.#enter("_deleteConversation");
    for (const [key, m] of this.#messages) {
      if (m.message.conversationId !== id) continue;
      this.#messages.delete(key);
      this.#traces.delete(key);
    }
    return this.#conversations.delete(id);
  }
  protected async _storeMessages(messages: Message[]): Promise<Message[]> {
    await this.#enter("_storeMessages");
    for (const m of messages) {
      if (!this.#conversations.has(m.conversationId))
        throw new IntegrityError(`conversation ${m.conversationId} does not exist`, {
          adapter: this.adapterName,
        });
    }
    for (const m of messages) {
      const sequence = this.#messages.get(m.id)?.sequence ?? ++this.#sequence;
      this.#messages.set(m.id, { message: m, sequence });
      const c = this.#conversations.get(m.conversationId)!;
      c.lastMessageAt = Math.max(c.lastMessageAt ?? m.timestamp, m.timestamp);
    }
    return messages;
  }
  protected async _getMessage(id: string): Promise<Message | null> {
    await this.#enter("_getMessage");
    return this.#messages.get(id)?.message ?? null;
  }
  protected async _flagMessage(id: string, flagged: boolean): Promise<Message | null> {
    await this.#enter("_flagMessage");
    const row = this.#messages.get(id);
    if (!row) return null;
    row.message = { ...row.message, isFlagged: flagged };
    return row.message;
  }
  #sorted(conversationId: string): SequencedMessage[] {
    const key = (r: SequencedMessage): MessageKey => ({
      timestamp: r.message.timestamp,
      sequence: r.sequence,
    });
    return [...this.#messages.values()]
      .filter((r) => r.message.conversationId === conversationId)
      .sort((a, b) => compareMessageKeys(key(a), key(b)));
  }
  protected async _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]> {
    await this.#enter("_getMessagesByConversationId");
    this.pageRequests.push(page);
    return sliceAfter(
      this.#sorted(conversationId),
      page,
      (r) => ({ timestamp: r.message.timestamp, sequence: r.sequence }),
      compareMessageKeys,
    );
  }
  protected async _getImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    await this.#enter("_getImmediateContext");
    const visible = this.#sorted(conversationId).filter((r) => !r.message.isFlagged);
    return visible.slice(-n).map((r) => r.message);
  }
  protected async _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    await this.#enter("_storeTurnTrace");
    this.#traces.set(trace.messageId, trace);
    return trace;
  }
  protected async _getTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    await this.#enter("_getTurnTraceByMessageId");
    return this.#traces.get(messageId) ?? null;
  }
  protected async _queryTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    await this.#enter("_queryTurnTraces");
    this.pageRequests.push(page);
    const rows = [...this.#traces.values()]
      .filter((t) => matchesTraceFilter(t, filter))
      .sort(compareTraceKeys);
    return sliceAfter(rows, page, (t) => t, compareTraceKeys);
  }
  protected async _summarizeUsage(query: UsageQuery): Promise<UsageBucket[]> {
    await this.#enter("_summarizeUsage");
    return summarizeTraces(this.#traces.values(), query);
  }
  protected async _deleteUserData(_userId: string): Promise<DeletedCounts> {
    await this.#enter("_deleteUserData");
    return { conversations: 0, messages: 0, turnTraces: 0 };
  }
  protected override async _searchMessages(query: SearchQuery): Promise<SearchHit[]> {
    await this.#enter("_searchMessages");
    const hits: SearchHit[] = [];
    for (const { message } of this.#messages.values()) {
      if (message.isFlagged || message.embedding === null) continue;
      const score = cosineSimilarity(message.embedding, query.embedding);
      if (score !== null) hits.push({ message, score });
    }
    return hits;
  }
  protected async _close(): Promise<void> {
    this.hookCalls.push("_close");
    this.closeCount++;
  }
}
