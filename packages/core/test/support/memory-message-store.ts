import {
  type Conversation,
  type ConversationKey,
  type ConversationRecord,
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  compareTraceKeys,
  cosineSimilarity,
  type DeletedCounts,
  IntegrityError,
  type Message,
  type MessageKey,
  MessageStore,
  matchesTraceFilter,
  type PageRequest,
  type SearchHit,
  type SearchQuery,
  type SequencedMessage,
  type StoreCapabilities,
  sliceAfter,
  summarizeTraces,
  type TraceKey,
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

  protected async putConversation(c: ConversationRecord): Promise<Conversation> {
    await this.#enter("putConversation");
    const lastMessageAt = this.#conversations.get(c.id)?.lastMessageAt ?? null;
    this.#conversations.set(c.id, { ...c, lastMessageAt });
    return this.#view(c.id)!;
  }
  protected async readConversation(id: string): Promise<Conversation | null> {
    await this.#enter("readConversation");
    return this.#view(id);
  }
  protected async listConversationsByUser(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]> {
    await this.#enter("listConversationsByUser");
    this.pageRequests.push(page);
    const rows = [...this.#conversations.keys()]
      .map((id) => this.#view(id)!)
      .filter((c) => c.userId === userId)
      .sort(compareConversationKeys);
    return sliceAfter(rows, page, (c) => c, compareConversationKeys);
  }
  protected async listAllConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]> {
    await this.#enter("listAllConversations");
    this.pageRequests.push(page);
    const rows = [...this.#conversations.keys()]
      .map((id) => this.#view(id)!)
      .filter((c) => userId === null || c.userId === userId)
      .sort((a, b) => compareIds(a.id, b.id));
    return sliceAfter(rows, page, (c) => c.id, compareIds);
  }
  protected async removeConversation(id: string): Promise<boolean> {
    await this.#enter("removeConversation");
    for (const [key, m] of this.#messages) {
      if (m.message.conversationId !== id) continue;
      this.#messages.delete(key);
      this.#traces.delete(key);
    }
    return this.#conversations.delete(id);
  }
  protected async putMessages(messages: Message[]): Promise<Message[]> {
    await this.#enter("putMessages");
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
  protected async readMessage(id: string): Promise<Message | null> {
    await this.#enter("readMessage");
    return this.#messages.get(id)?.message ?? null;
  }
  protected async setMessageFlag(id: string, flagged: boolean): Promise<Message | null> {
    await this.#enter("setMessageFlag");
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
  protected async listMessages(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]> {
    await this.#enter("listMessages");
    this.pageRequests.push(page);
    return sliceAfter(
      this.#sorted(conversationId),
      page,
      (r) => ({ timestamp: r.message.timestamp, sequence: r.sequence }),
      compareMessageKeys,
    );
  }
  protected async readImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    await this.#enter("readImmediateContext");
    const visible = this.#sorted(conversationId).filter((r) => !r.message.isFlagged);
    return visible.slice(-n).map((r) => r.message);
  }
  protected async putTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    await this.#enter("putTurnTrace");
    this.#traces.set(trace.messageId, trace);
    return trace;
  }
  protected async readTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    await this.#enter("readTurnTraceByMessageId");
    return this.#traces.get(messageId) ?? null;
  }
  protected async listTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    await this.#enter("listTurnTraces");
    this.pageRequests.push(page);
    const rows = [...this.#traces.values()]
      .filter((t) => matchesTraceFilter(t, filter))
      .sort(compareTraceKeys);
    return sliceAfter(rows, page, (t) => t, compareTraceKeys);
  }
  protected async aggregateUsage(query: UsageQuery): Promise<UsageBucket[]> {
    await this.#enter("aggregateUsage");
    return summarizeTraces(this.#traces.values(), query);
  }
  protected async removeUserData(_userId: string): Promise<DeletedCounts> {
    await this.#enter("removeUserData");
    return { conversations: 0, messages: 0, turnTraces: 0 };
  }
  protected override async searchByEmbedding(query: SearchQuery): Promise<SearchHit[]> {
    await this.#enter("searchByEmbedding");
    const hits: SearchHit[] = [];
    for (const { message } of this.#messages.values()) {
      if (message.isFlagged || message.embedding === null) continue;
      const score = cosineSimilarity(message.embedding, query.embedding);
      if (score !== null) hits.push({ message, score });
    }
    return hits;
  }
  protected async closeStore(): Promise<void> {
    this.hookCalls.push("closeStore");
    this.closeCount++;
  }
}
