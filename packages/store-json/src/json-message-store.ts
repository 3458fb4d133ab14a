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
  type SearchHit,
  type SearchQuery,
  type StoreCapabilities,
  StoreClosedError,
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
import { cloneConversation, cloneMessage, cloneTrace } from "./clone.js";
import {
  ADAPTER,
  DEFAULT_COMPACT_THRESHOLD_BYTES,
  JsonConfigSchema,
  type JsonStoreConfig,
  MEMORY_PATH,
} from "./config.js";
import { FilePersistence } from "./file-persistence.js";
import { errorCode, storageError } from "./fs-util.js";
import { GroupCommit } from "./group-commit.js";
import {
  immediateContext,
  listConversations,
  listConversationsById,
  listMessages,
  listTraces,
  pendingEmbeddings,
  searchMessages,
  summarizeUsage,
} from "./memory-queries.js";
import { conversationView, MemoryState } from "./memory-state.js";
import { Mutex } from "./mutex.js";
import type { Operation, ResultOf } from "./operations.js";
import { searchConversations } from "./text-search.js";

/**
 * The embedded message store: the whole dataset in memory, persisted to one human-readable JSON
 * file plus an append-only journal. Every acknowledged write is on disk (fdatasync) before the
 * call resolves; one process at a time may open a file (`StoreLockedError` otherwise).
 *
 * Open it with `MessageStore.initialize({ storage: "json", path })` or
 * {@link JsonMessageStore.open}; `path: ":memory:"` keeps nothing on disk.
 */
export class JsonMessageStore extends MessageStore {
  readonly adapterName = ADAPTER;
  override readonly capabilities: StoreCapabilities = {
    semanticSearch: true,
    softDelete: true,
    tenants: true,
    embeddingQueue: true,
    textSearch: true,
  };
  /** The main file (absolute), or `":memory:"`. */
  readonly path: string;
  readonly #state: MemoryState;
  readonly #persistence: FilePersistence | null;
  readonly #mutex: Mutex;
  readonly #commits: GroupCommit;

  private constructor(state: MemoryState, persistence: FilePersistence | null) {
    super();
    this.#state = state;
    this.#persistence = persistence;
    this.#mutex = persistence?.mutex ?? new Mutex();
    this.#commits = new GroupCommit(state, persistence, this.#mutex);
    this.path = persistence?.files.main ?? MEMORY_PATH;
  }

  /**
   * Opens (or creates) the store at `config.path`: locks the file, loads it and replays the
   * journal. `storage: "json"` may be given or left out. Throws `ConfigurationError` for a bad
   * config (before any I/O), `NotFoundError` with `create: false` when there is no store at the
   * path (nothing is created), `StoreLockedError` when another process (or this one) has it open,
   * `CorruptDataError` when the files do not parse (they are left untouched) and `StorageError`
   * when the disk refuses.
   */
  static async open(config: JsonStoreConfig & { storage?: "json" }): Promise<JsonMessageStore> {
    const {
      path,
      compact_threshold_bytes: configured,
      create,
    } = parseConfig(JsonConfigSchema, config, ADAPTER);
    if (path === MEMORY_PATH) return new JsonMessageStore(new MemoryState(), null);
    const persistence = await FilePersistence.open(path, {
      bytes: configured ?? DEFAULT_COMPACT_THRESHOLD_BYTES,
      growWithMainFile: configured === undefined,
      create,
    });
    return new JsonMessageStore(persistence.memoryState, persistence);
  }

  /**
   * Folds the journal into the main file now (it also happens on its own past
   * `compact_threshold_bytes`, and on close). A no-op for `":memory:"`. Rejects with
   * `StoreClosedError` after `close()` and `StorageError` when the disk refuses (nothing is
   * lost: the old main file and the journal stay valid, and a later compaction retries).
   */
  compact(): Promise<void> {
    // Not a hook: core neither rejects it after close() nor names the adapter in its errors.
    if (this.closed) return Promise.reject(new StoreClosedError({ adapter: ADAPTER }));
    // Writes go on meanwhile; the persistence takes the mutex for its short steps.
    return this.#persistence?.compact() ?? Promise.resolve();
  }

  /** Check, journal, apply — in call order, concurrent writes sharing one fdatasync. */
  #write<O extends Operation>(op: O): Promise<ResultOf<O>> {
    return this.#commits.write(op);
  }

  protected async _storeConversation(conversation: ConversationRecord): Promise<Conversation> {
    const stored = await this.#write({
      op: "putConversation",
      conversation: cloneConversation(conversation),
    });
    return conversationView(stored);
  }

  protected async _getConversation(id: string, options: ReadRequest): Promise<Conversation | null> {
    const c = this.#state.conversations.get(id);
    return c && (options.includeDeleted || c.deletedAt === null) ? conversationView(c) : null;
  }

  protected async _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
    filter: ConversationFilter,
  ): Promise<Conversation[]> {
    return listConversations(this.#state, userId, page, filter);
  }

  protected async _listConversations(
    userId: string | null,
    page: PageRequest<string>,
    filter: ConversationFilter,
  ): Promise<Conversation[]> {
    return listConversationsById(this.#state, userId, page, filter);
  }

  protected _deleteConversation(id: string): Promise<boolean> {
    return this.#write({ op: "deleteConversation", id });
  }

  protected override _softDeleteConversation(id: string, deletedAt: number): Promise<boolean> {
    return this.#write({ op: "softDeleteConversation", id, deletedAt });
  }

  protected override _restoreConversation(id: string): Promise<boolean> {
    return this.#write({ op: "restoreConversation", id });
  }

  protected async _storeMessages(
    messages: Message[],
    options: StoreMessagesOptions,
  ): Promise<Message[]> {
    // The store keeps copies. The caller gets back the records it handed in where the store
    // kept them as they were (equal), and a copy of the stored record where it filled something.
    const copies = messages.map(cloneMessage);
    const ensure = options.ensureConversation;
    const stored = await this.#write(
      ensure
        ? { op: "putMessages", messages: copies, ensureConversation: cloneConversation(ensure) }
        : { op: "putMessages", messages: copies },
    );
    return stored.map((m, i) => (m === copies[i] ? messages[i]! : cloneMessage(m)));
  }

  protected async _getMessage(id: string, options: ReadRequest): Promise<Message | null> {
    const m = this.#state.messages.get(id)?.message;
    return m && (options.includeDeleted || m.deletedAt === null) ? cloneMessage(m) : null;
  }

  protected async _flagMessage(id: string, flagged: boolean): Promise<Message | null> {
    const message = await this.#write({ op: "flagMessage", id, flagged });
    return message && cloneMessage(message);
  }

  protected override _softDeleteMessage(id: string, deletedAt: number): Promise<boolean> {
    return this.#write({ op: "softDeleteMessage", id, deletedAt });
  }

  protected override _restoreMessage(id: string): Promise<boolean> {
    return this.#write({ op: "restoreMessage", id });
  }

  protected _deleteMessage(id: string): Promise<boolean> {
    return this.#write({ op: "deleteMessage", id });
  }

  protected override _purgeDeleted(before: number, scope: Scope): Promise<DeletedCounts> {
    return this.#write({ op: "purgeDeleted", before, scope: { ...scope } });
  }

  protected async _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
    options: ReadRequest,
  ): Promise<SequencedMessage[]> {
    return listMessages(this.#state, conversationId, page, options.includeDeleted);
  }

  protected async _getImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    return immediateContext(this.#state, conversationId, n);
  }

  protected async _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    const copy = cloneTrace(trace);
    const stored = await this.#write({ op: "putTurnTrace", trace: copy });
    return stored === copy ? trace : cloneTrace(stored);
  }

  protected async _getTurnTraceByMessageId(
    messageId: string,
    options: ReadRequest,
  ): Promise<TurnTrace | null> {
    const trace = this.#state.traceOf(messageId);
    return trace && (options.includeDeleted || trace.deletedAt === null) ? cloneTrace(trace) : null;
  }

  protected async _queryTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    return listTraces(this.#state, filter, page);
  }

  protected async _summarizeUsage(query: UsageQuery): Promise<UsageBucket[]> {
    return summarizeUsage(this.#state, query);
  }

  protected _deleteUserData(userId: string, filter: { tenantId?: string }): Promise<DeletedCounts> {
    return this.#write(
      filter.tenantId === undefined
        ? { op: "deleteUserData", userId }
        : { op: "deleteUserData", userId, tenantId: filter.tenantId },
    );
  }

  protected override async _searchMessages(query: SearchQuery): Promise<SearchHit[]> {
    return searchMessages(this.#state, query);
  }

  protected override async _searchConversations(
    filter: TextSearchFilter,
    page: PageRequest<ConversationKey>,
  ): Promise<TextSearchHit[]> {
    return searchConversations(this.#state, filter, page);
  }

  protected override async _listPendingEmbeddings(
    filter: PendingEmbeddingsFilter,
    page: PageRequest<string>,
  ): Promise<Message[]> {
    return pendingEmbeddings(this.#state, filter, page);
  }

  protected override _setEmbeddings(updates: EmbeddingUpdate[]): Promise<number> {
    return this.#write({ op: "setEmbeddings", updates: updates.map(cloneUpdate) });
  }

  protected _close(): Promise<void> {
    // Waits for the writes queued before it; takes the mutex itself (see FilePersistence.close).
    return this.#persistence?.close() ?? Promise.resolve();
  }

  /**
   * A file-system error that no call site worded (they wrap what they expect with what they
   * were doing): a `StorageError` naming the system call, the file and the error code.
   */
  protected override mapError(error: unknown): MessageStoreError {
    const { syscall, path } = (error ?? {}) as { syscall?: unknown; path?: unknown };
    if (typeof syscall !== "string" || errorCode(error) === undefined) return super.mapError(error);
    return storageError(syscall, typeof path === "string" ? path : this.path, error);
  }
}

function cloneUpdate(u: EmbeddingUpdate): EmbeddingUpdate {
  return { id: u.id, embedding: u.embedding.slice(), originalContent: u.originalContent };
}
