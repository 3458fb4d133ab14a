import {
  type Conversation,
  type ConversationRecord,
  type DeletedCounts,
  type Message,
  MessageStore,
  type MessageStoreError,
  type SearchHit,
  type SearchQuery,
  type StoreCapabilities,
  StoreClosedError,
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
  type SequencedMessage,
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
  searchMessages,
  summarizeUsage,
} from "./memory-queries.js";
import { conversationView, MemoryState } from "./memory-state.js";
import { Mutex } from "./mutex.js";
import type { Operation, ResultOf } from "./operations.js";

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
  override readonly capabilities: StoreCapabilities = { semanticSearch: true };
  /** The main file (absolute), or `":memory:"`. */
  readonly path: string;
  readonly #state: MemoryState;
  readonly #persistence: FilePersistence | null;
  readonly #mutex = new Mutex();
  readonly #commits: GroupCommit;

  private constructor(state: MemoryState, persistence: FilePersistence | null) {
    super();
    this.#state = state;
    this.#persistence = persistence;
    this.#commits = new GroupCommit(state, persistence, this.#mutex);
    this.path = persistence?.files.main ?? MEMORY_PATH;
  }

  /**
   * Opens (or creates) the store at `config.path`: locks the file, loads it and replays the
   * journal. `storage: "json"` may be given or left out. Throws `ConfigurationError` for a bad
   * config (before any I/O), `StoreLockedError` when another process (or this one) has it open,
   * `CorruptDataError` when the files do not parse (they are left untouched) and `StorageError`
   * when the disk refuses.
   */
  static async open(config: JsonStoreConfig & { storage?: "json" }): Promise<JsonMessageStore> {
    const { path, compact_threshold_bytes: configured } = parseConfig(
      JsonConfigSchema,
      config,
      ADAPTER,
    );
    if (path === MEMORY_PATH) return new JsonMessageStore(new MemoryState(), null);
    const persistence = await FilePersistence.open(path, {
      bytes: configured ?? DEFAULT_COMPACT_THRESHOLD_BYTES,
      growWithMainFile: configured === undefined,
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
    return this.#mutex.run(async () => {
      await this.#persistence?.compact();
    });
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

  protected async _getConversation(id: string): Promise<Conversation | null> {
    const c = this.#state.conversations.get(id);
    return c ? conversationView(c) : null;
  }

  protected async _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]> {
    return listConversations(this.#state, userId, page);
  }

  protected async _listConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]> {
    return listConversationsById(this.#state, userId, page);
  }

  protected _deleteConversation(id: string): Promise<boolean> {
    return this.#write({ op: "deleteConversation", id });
  }

  protected async _storeMessages(messages: Message[]): Promise<Message[]> {
    // The store keeps copies; the caller gets back the records it handed in, which are equal.
    await this.#write({ op: "putMessages", messages: messages.map(cloneMessage) });
    return messages;
  }

  protected async _getMessage(id: string): Promise<Message | null> {
    const entry = this.#state.messages.get(id);
    return entry ? cloneMessage(entry.message) : null;
  }

  protected async _flagMessage(id: string, flagged: boolean): Promise<Message | null> {
    const message = await this.#write({ op: "flagMessage", id, flagged });
    return message && cloneMessage(message);
  }

  protected async _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]> {
    return listMessages(this.#state, conversationId, page);
  }

  protected async _getImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    return immediateContext(this.#state, conversationId, n);
  }

  protected async _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    await this.#write({ op: "putTurnTrace", trace: cloneTrace(trace) });
    return trace;
  }

  protected async _getTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    const id = this.#state.traceIdByMessage.get(messageId);
    const trace = id === undefined ? undefined : this.#state.traces.get(id);
    return trace ? cloneTrace(trace) : null;
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

  protected _deleteUserData(userId: string): Promise<DeletedCounts> {
    return this.#write({ op: "deleteUserData", userId });
  }

  protected override async _searchMessages(query: SearchQuery): Promise<SearchHit[]> {
    return searchMessages(this.#state, query);
  }

  protected _close(): Promise<void> {
    return this.#mutex.run(async () => {
      await this.#persistence?.close();
    });
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
