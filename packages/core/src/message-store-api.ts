import type { Conversation, ConversationInput } from "./models/conversation.js";
import type { Message, MessageInput } from "./models/message.js";
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
} from "./models/queries.js";
import type { TurnTrace, TurnTraceInput } from "./models/turn-trace.js";

/** Optional capabilities; the conformance suite skips (visibly) what an adapter does not declare. */
export interface StoreCapabilities {
  /** `searchMessages` is implemented. */
  readonly semanticSearch: boolean;
}

/**
 * The message store contract: what every adapter, and every scoped view, offers.
 *
 * Rules that hold for every method:
 * - Input is validated against the models first; a failure rejects with `ValidationError` and
 *   no I/O happens. Ids are strings of 1–256 characters; anything else (including objects such
 *   as `{ $ne: null }`) is a `ValidationError`.
 * - `store*` methods are upserts by id and resolve to the record exactly as a later read returns
 *   it, defaults filled. An upsert replaces the whole record with the new one.
 * - Lists resolve to a {@link Page}: pass `nextCursor` back as `cursor`; `limit` omitted means
 *   everything that is left. Cursors are keyset positions: rows written after a cursor was issued
 *   never make a later page repeat or skip a row that existed when the first page was read.
 * - A lost or unreachable backend rejects with `ConnectionError`; every call after `close()`
 *   rejects with `StoreClosedError`.
 */
export interface MessageStoreApi {
  readonly capabilities: StoreCapabilities;

  /** Upserts a conversation. Resolves to it as read back (with `lastActivityAt`). Throws `ValidationError`. */
  storeConversation(conversation: ConversationInput): Promise<Conversation>;

  /** Resolves to the conversation, or `null` if there is none with that id. Never throws `NotFoundError`. */
  getConversation(id: string): Promise<Conversation | null>;

  /**
   * A user's conversations, most recent activity first: `lastActivityAt` descending, then `id`
   * ascending. `lastActivityAt` is the greater of `updatedAt` and the newest message timestamp.
   * An unknown user gives an empty page (no error).
   */
  getConversationsByUserId(userId: string, options?: PageOptions): Promise<Page<Conversation>>;

  /**
   * Every conversation (or one user's, with `userId`) ordered by `id` ascending in code-point
   * order: the stable walk that exports, migrations and erasure audits need.
   */
  listConversations(options?: ListConversationsOptions): Promise<Page<Conversation>>;

  /**
   * Deletes the conversation, its messages and their traces, atomically as seen through the API.
   * Resolves `true`, or `false` if it did not exist. Other conversations are untouched.
   */
  deleteConversation(id: string): Promise<boolean>;

  /**
   * Upserts one message. The conversation must exist (`IntegrityError` otherwise) and an existing
   * message may not move to another conversation (`IntegrityError`). A new message is placed after
   * every message already stored with the same timestamp; an upsert keeps its place.
   */
  storeMessage(message: MessageInput): Promise<Message>;

  /**
   * Upserts a batch, all or nothing: on any error nothing of it is stored. Array order is the
   * order of receipt, so same-timestamp messages keep it. Resolves in input order. The same id
   * twice in one batch is a `ValidationError`.
   */
  storeMessages(messages: MessageInput[]): Promise<Message[]>;

  /** Resolves to the message, or `null`. */
  getMessage(id: string): Promise<Message | null>;

  /** Sets `isFlagged` and resolves to the updated message. Throws `NotFoundError` for an unknown id. */
  flagMessage(id: string, flagged?: boolean): Promise<Message>;

  /**
   * The transcript, chronological: `(timestamp, sequence)` ascending, flagged messages included.
   * An unknown conversation gives an empty page.
   */
  getMessagesByConversationId(
    conversationId: string,
    options?: PageOptions,
  ): Promise<Page<Message>>;

  /**
   * The `n` most recent non-flagged messages, oldest first (the context window). `n = 0` gives `[]`;
   * an unknown conversation gives `[]`. With `compress`, long assistant messages come back as
   * head + hint + tail (the stored message is unchanged; `getMessage` returns it whole).
   */
  getImmediateContext(
    conversationId: string,
    n: number,
    options?: ContextOptions,
  ): Promise<Message[]>;

  /**
   * Upserts the trace of one turn. Its message must exist and belong to `conversationId`
   * (`IntegrityError`), and a message has at most one trace: a second trace with another id for
   * the same message is an `IntegrityError`.
   */
  storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace>;

  /** Resolves to the trace of that message, or `null`. */
  getTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null>;

  /**
   * An agent's traces, newest first: `timestamp` descending, then `id` descending. `since` is
   * inclusive, `until` exclusive.
   */
  getTurnTracesByAgentId(agentId: string, options?: AgentTraceOptions): Promise<Page<TurnTrace>>;

  /**
   * Traces matching every given filter, in the same order as {@link getTurnTracesByAgentId}.
   * `toolName` matches any tool trace, `model` any LLM call, `userId` the trace's `userId`.
   */
  queryTurnTraces(query?: TurnTraceQueryInput): Promise<Page<TurnTrace>>;

  /**
   * Token, cost, latency and error totals per UTC hour or day over `[since, until)`, oldest bucket
   * first; empty buckets are omitted. Identical on every adapter.
   */
  summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]>;

  /**
   * Right to erasure: deletes every conversation of the user, with their messages and traces,
   * and resolves to the counts removed. Zero counts for an unknown user.
   */
  deleteUserData(userId: string): Promise<DeletedCounts>;

  /**
   * Messages ranked by cosine similarity to `embedding` (highest first, ties by id ascending,
   * score rounded to 1e-9). Flagged messages and embeddings of another length are skipped.
   * Throws `UnsupportedOperationError` unless `capabilities.semanticSearch`.
   */
  searchMessages(query: SearchQueryInput): Promise<SearchHit[]>;
}
