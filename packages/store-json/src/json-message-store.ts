import {
  ConfigurationError,
  type Conversation,
  type ConversationKey,
  type ConversationRecord,
  type DeletedCounts,
  JsonConfigSchema,
  type JsonStoreConfig,
  type Message,
  type MessageKey,
  MessageStore,
  type PageRequest,
  type ResolvedJsonConfig,
  type SearchHit,
  type SearchQuery,
  type SequencedMessage,
  type StoreCapabilities,
  type TraceKey,
  type TurnTrace,
  type TurnTraceFilter,
  type UsageBucket,
  type UsageQuery,
} from "@message-store/core";
import { cloneJson, cloneMessage, cloneTrace } from "./clone.js";
import { FilePersistence } from "./file-persistence.js";
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
import { conversationRecord, conversationView, MemoryState } from "./memory-state.js";
import { Mutex } from "./mutex.js";
import type { Operation, ResultOf } from "./operations.js";
import { ADAPTER } from "./record-schemas.js";

/** The `path` that keeps everything in memory: nothing is read or written on disk. */
export const MEMORY_PATH = ":memory:";

/**
 * Journal size that triggers compaction into the main file when none is configured: 8 MiB, or
 * half the main file's size once that is larger (see `CompactionPolicy`).
 */
export const DEFAULT_COMPACT_THRESHOLD_BYTES = 8 * 1024 * 1024;

/**
 * Options of {@link JsonMessageStore.open}: the `"json"` config of `MessageStore.initialize`,
 * where `storage` may be left out.
 */
export type JsonMessageStoreOptions = Omit<JsonStoreConfig, "storage"> & { storage?: "json" };

/** Validates options with core's `JsonConfigSchema`; a failure is a `ConfigurationError`. */
export function parseJsonConfig(options: JsonMessageStoreOptions): ResolvedJsonConfig {
  const input =
    typeof options === "object" && options !== null ? { storage: "json", ...options } : options;
  const parsed = JsonConfigSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
  throw new ConfigurationError(`invalid json config: ${detail}`, { adapter: ADAPTER });
}

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
   * Opens (or creates) the store at `options.path`: locks the file, loads it and replays the
   * journal. Throws `ConfigurationError` for bad options, `StoreLockedError` when another
   * process (or this one) has it open, `CorruptDataError` when the files do not parse (they are
   * left untouched) and `StorageError` when the disk refuses.
   */
  static async open(options: JsonMessageStoreOptions): Promise<JsonMessageStore> {
    const config = parseJsonConfig(options);
    if (config.path === MEMORY_PATH) return new JsonMessageStore(new MemoryState(), null);
    const configured = config.compact_threshold_bytes;
    const persistence = await FilePersistence.open(config.path, {
      bytes: configured ?? DEFAULT_COMPACT_THRESHOLD_BYTES,
      growWithMainFile: configured === undefined,
    });
    return new JsonMessageStore(persistence.memoryState, persistence);
  }

  /**
   * Folds the journal into the main file now (it also happens on its own past
   * `compact_threshold_bytes`, and on close). A no-op for `":memory:"`.
   */
  compact(): Promise<void> {
    return this.#mutex.run(async () => {
      await this.#persistence?.compact();
    });
  }

  /** Check, journal, apply — in call order, concurrent writes sharing one fdatasync. */
  #write<O extends Operation>(op: O): Promise<ResultOf<O>> {
    return this.#commits.write(op);
  }

  protected async putConversation(conversation: ConversationRecord): Promise<Conversation> {
    const stored = await this.#write({
      op: "putConversation",
      conversation: conversationRecord(cloneJson(conversation)),
    });
    return conversationView(stored);
  }

  protected async readConversation(id: string): Promise<Conversation | null> {
    const c = this.#state.conversations.get(id);
    return c ? conversationView(c) : null;
  }

  protected async listConversationsByUser(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]> {
    return listConversations(this.#state, userId, page);
  }

  protected async listAllConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]> {
    return listConversationsById(this.#state, userId, page);
  }

  protected removeConversation(id: string): Promise<boolean> {
    return this.#write({ op: "deleteConversation", id });
  }

  protected async putMessages(messages: Message[]): Promise<Message[]> {
    // The store keeps copies; the caller gets back the records it handed in, which are equal.
    await this.#write({ op: "putMessages", messages: messages.map(cloneMessage) });
    return messages;
  }

  protected async readMessage(id: string): Promise<Message | null> {
    const entry = this.#state.messages.get(id);
    return entry ? cloneMessage(entry.message) : null;
  }

  protected async setMessageFlag(id: string, flagged: boolean): Promise<Message | null> {
    const message = await this.#write({ op: "flagMessage", id, flagged });
    return message && cloneMessage(message);
  }

  protected async listMessages(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]> {
    return listMessages(this.#state, conversationId, page);
  }

  protected async readImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    return immediateContext(this.#state, conversationId, n);
  }

  protected async putTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    await this.#write({ op: "putTurnTrace", trace: cloneTrace(trace) });
    return trace;
  }

  protected async readTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    const id = this.#state.traceIdByMessage.get(messageId);
    const trace = id === undefined ? undefined : this.#state.traces.get(id);
    return trace ? cloneTrace(trace) : null;
  }

  protected async listTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    return listTraces(this.#state, filter, page);
  }

  protected async aggregateUsage(query: UsageQuery): Promise<UsageBucket[]> {
    return summarizeUsage(this.#state, query);
  }

  protected removeUserData(userId: string): Promise<DeletedCounts> {
    return this.#write({ op: "deleteUserData", userId });
  }

  protected override async searchByEmbedding(query: SearchQuery): Promise<SearchHit[]> {
    return searchMessages(this.#state, query);
  }

  protected closeStore(): Promise<void> {
    return this.#mutex.run(async () => {
      await this.#persistence?.close();
    });
  }
}
