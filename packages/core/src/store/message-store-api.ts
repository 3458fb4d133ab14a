import type {
  CheckpointInput,
  CheckpointPutOptions,
  CheckpointQueryInput,
  CheckpointReadOptions,
  CheckpointWritesInput,
  StoredCheckpoint,
} from "../models/checkpoint.js";
import type { Conversation, ConversationInput } from "../models/conversation.js";
import type { Message, MessageInput } from "../models/message.js";
import type {
  AgentTraceOptions,
  ContextOptions,
  ConversationListOptions,
  DeletedCounts,
  DeleteUserDataOptions,
  ListConversationsOptions,
  LoadSessionOptions,
  MessageListOptions,
  Page,
  PendingEmbeddingsOptions,
  PurgeOptions,
  ReadOptions,
  SearchHit,
  SearchQueryInput,
  TurnTraceQueryInput,
  UsageBucket,
  UsageQueryInput,
} from "../models/queries.js";
import type { EmbeddingUpdateInput, SessionOptions, SessionTurn } from "../models/session.js";
import type { TextSearchHit, TextSearchQueryInput } from "../models/text-search.js";
import type { TurnTrace, TurnTraceInput } from "../models/turn-trace.js";

/**
 * Optional capabilities; the conformance suite skips (visibly) what an adapter does not declare,
 * and core rejects a call that needs an undeclared one with `UnsupportedOperationError` before
 * any I/O. A flag that is absent counts as `false`.
 */
export interface StoreCapabilities {
  /** `searchMessages` is implemented. */
  readonly semanticSearch: boolean;
  /**
   * Soft delete: `softDelete*`, `restore*`, `purgeDeleted`, and records written with a
   * `deletedAt` (import of soft-deleted data). Without it those calls, and writes carrying a
   * `deletedAt`, reject with `UnsupportedOperationError`, so no soft-deleted data exists.
   */
  readonly softDelete?: boolean;
  /**
   * Tenants: records carry `tenantId`, queries filter by it and `forTenant` works. Without it,
   * writes carrying a `tenantId`, `tenantId` filters and `forTenant` reject with
   * `UnsupportedOperationError`. (The ownership rules of {@link MessageStoreApi} hold on every
   * adapter, with or without tenants.)
   */
  readonly tenants?: boolean;
  /** `listPendingEmbeddings`, `setEmbeddings` (and so `embedPendingMessages`) are implemented. */
  readonly embeddingQueue?: boolean;
  /** `searchConversations` (text search over titles and message contents) is implemented. */
  readonly textSearch?: boolean;
  /**
   * A guarantee, not an operation: `storeTurnTraces` stores all or nothing. Without it, a batch
   * refused at one trace keeps the traces before it (see {@link MessageStoreApi.storeTurnTraces}).
   */
  readonly atomicTraceBatches?: boolean;
  /**
   * Checkpoints of agent graphs (LangGraph's savers): `putCheckpoint`, `putCheckpointWrites`,
   * `getCheckpoint`, `listCheckpoints`, `deleteCheckpoints`. A thread is a conversation: its
   * checkpoints follow the conversation's scope, soft delete, deletion and erasure.
   */
  readonly checkpoints?: boolean;
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
 *   Each page is one consistent read: a concurrent write (a batch, a cascade, an erasure) is in
 *   it entirely or not at all, also when the writer is another store instance (connection).
 * - A lost or unreachable backend rejects with `ConnectionError`; a write that was sent and
 *   whose answer never came rejects with `OutcomeUnknownError` (a `ConnectionError`): it may have
 *   been stored, and repeating the call is safe (see its TSDoc for each write). Every call after
 *   `close()` rejects with `StoreClosedError`.
 *
 * Ownership and tenancy, enforced atomically inside every write on every adapter
 * (`IntegrityError`, nothing stored):
 * - A conversation's `userId` and `tenantId` never change: an upsert with another value is an
 *   `IntegrityError`. So of two racing creates of one id by different users, one wins.
 * - A message's `userId` must equal its conversation's; its `tenantId`, if not `null`, too
 *   (`null` is filled from the conversation, and the stored message carries the filled value).
 * - A trace's `userId` and `tenantId`: `null` is filled from its conversation, another value is
 *   an `IntegrityError`. A message cannot move to another conversation, nor a trace to another
 *   message. Every record of a conversation therefore has its owner's `userId` and `tenantId`,
 *   and filters by `userId` agree with ownership by conversation.
 *
 * Soft delete: a soft-deleted record keeps its data and gets `deletedAt`. Every read, list,
 * analytics query and search hides soft-deleted records unless `includeDeleted: true` is passed;
 * the context window never includes them. `deletedAt` of an existing record changes only through
 * `softDelete*` and `restore*` (an upsert that would change it is an `IntegrityError`); a new
 * record may be written soft-deleted (import). A live record cannot be written into a
 * soft-deleted conversation (`IntegrityError`) until it is restored. `lastActivityAt` is
 * unaffected by soft delete and restore.
 */
export interface MessageStoreApi {
  readonly capabilities: StoreCapabilities;

  /**
   * Upserts a conversation. Resolves to it as read back (with `lastActivityAt`). Throws
   * `ValidationError`, and `IntegrityError` when it exists with another `userId` or `tenantId`,
   * or the upsert would change its `deletedAt`.
   */
  storeConversation(conversation: ConversationInput): Promise<Conversation>;

  /**
   * Resolves to the conversation, or `null` if there is none with that id (or it is soft-deleted
   * and `includeDeleted` is not set). Never throws `NotFoundError`.
   */
  getConversation(id: string, options?: ReadOptions): Promise<Conversation | null>;

  /**
   * A user's conversations (of one tenant, with `tenantId`), most recent activity first:
   * `lastActivityAt` descending, then `id` ascending. `lastActivityAt` is the greater of
   * `updatedAt` and the newest timestamp of every message ever stored in the conversation since
   * it was created: messages deleted later, and timestamps an upsert moved away from, still
   * count (a conversation's activity never goes back because a message was removed or moved;
   * only `deleteConversation` and erasure forget it). An unknown user gives an empty page (no
   * error).
   */
  getConversationsByUserId(
    userId: string,
    options?: ConversationListOptions,
  ): Promise<Page<Conversation>>;

  /**
   * Every conversation (or one user's with `userId`, one tenant's with `tenantId`) ordered by
   * `id` ascending in code-point order: the stable walk that exports, migrations and erasure
   * audits need.
   */
  listConversations(options?: ListConversationsOptions): Promise<Page<Conversation>>;

  /**
   * Deletes the conversation, its messages and their traces (and its checkpoints) for good
   * (soft-deleted ones included), atomically as seen through the API: a concurrent reader, on this or another
   * store instance, sees all of it or none of it, and no row is left behind the API. Resolves `true`, or `false` if it did not
   * exist. Other conversations are untouched.
   */
  deleteConversation(id: string): Promise<boolean>;

  /**
   * Soft-deletes the conversation with its live messages and traces (its checkpoints are hidden
   * with it until {@link restoreConversation}): all get the same
   * `deletedAt` (now, or just after the newest `deletedAt` among its records, so that
   * {@link restoreConversation} can tell them from records deleted before). Resolves `false`
   * when there is no such conversation or it is already soft-deleted.
   */
  softDeleteConversation(id: string): Promise<boolean>;

  /**
   * Restores a soft-deleted conversation with the messages and traces soft-deleted with it (same
   * `deletedAt`), not those deleted on their own before. Resolves `false` when there is no such
   * conversation or it is not soft-deleted.
   */
  restoreConversation(id: string): Promise<boolean>;

  /**
   * Upserts one message. The conversation must exist (`IntegrityError` otherwise) and an existing
   * message may not move to another conversation (`IntegrityError`); see the ownership rules
   * above. A new message is placed after every message already stored with the same timestamp;
   * an upsert keeps its place. An upsert without an embedding, or one that changes
   * `originalContent` while passing the embedding already stored, stores `embedding: null` (the
   * message is then pending embedding). Every field takes effect at once in every read path:
   * `isFlagged: true` by upsert leaves the context window exactly like {@link flagMessage}, an
   * upsert with `embedding: null` leaves search, and search filters see the stored `userId`.
   *
   * The receipt order (the sequence that breaks timestamp ties) is durable: it survives
   * `close()` and reopen, and a restart of the backend; a message stored after a reopen goes
   * after every message stored before it with the same timestamp.
   */
  storeMessage(message: MessageInput): Promise<Message>;

  /**
   * Upserts a batch, all or nothing: on any error nothing of it is stored. Array order is the
   * order of receipt, so same-timestamp messages keep it. Resolves in input order. The same id
   * twice in one batch is a `ValidationError`.
   */
  storeMessages(messages: MessageInput[]): Promise<Message[]>;

  /** Resolves to the message, or `null` (also when soft-deleted, unless `includeDeleted`). */
  getMessage(id: string, options?: ReadOptions): Promise<Message | null>;

  /**
   * Sets `isFlagged` and resolves to the updated message. Throws `NotFoundError` for an unknown
   * or soft-deleted id.
   */
  flagMessage(id: string, flagged?: boolean): Promise<Message>;

  /**
   * Soft-deletes one live message and its trace. Resolves `false` when there is no such message
   * or it is already soft-deleted.
   */
  softDeleteMessage(id: string): Promise<boolean>;

  /**
   * Restores a soft-deleted message and the trace deleted with it. Resolves `false` when there
   * is no such message or it is live; throws `IntegrityError` while its conversation is
   * soft-deleted (restore the conversation instead).
   */
  restoreMessage(id: string): Promise<boolean>;

  /**
   * Deletes one message and its trace for good, soft-deleted or not. Resolves `false` when there
   * is no such message. The conversation's `lastActivityAt` is unchanged.
   */
  deleteMessage(id: string): Promise<boolean>;

  /**
   * Hard-deletes everything soft-deleted strictly before `before`: conversations (with all their
   * records), messages (with their traces) and traces. Resolves to the exact counts removed.
   */
  purgeDeleted(options: PurgeOptions): Promise<DeletedCounts>;

  /**
   * The transcript, chronological: `(timestamp, sequence)` ascending, flagged messages included,
   * soft-deleted ones only with `includeDeleted`. An unknown conversation gives an empty page.
   */
  getMessagesByConversationId(
    conversationId: string,
    options?: MessageListOptions,
  ): Promise<Page<Message>>;

  /**
   * The `n` most recent live, non-flagged messages, oldest first (the context window). Flagged
   * means `isFlagged` as stored, whether set by {@link flagMessage} or by an upsert. `n = 0`
   * gives `[]`; an unknown conversation gives `[]`. With `compress` (`true`, `{}` or sizes), long
   * assistant messages come back as head + a hint naming the `lookup_message` tool + tail (the
   * stored message is unchanged; `getMessage` returns it whole).
   */
  getImmediateContext(
    conversationId: string,
    n: number,
    options?: ContextOptions,
  ): Promise<Message[]>;

  /**
   * Stores plain turns (`{ role, content, toolCalls?, … }`) in a conversation in one atomic
   * write: each becomes a message with a new UUID v7 id (unless the turn has one) and a timestamp
   * after the conversation's newest activity (`max(now, lastActivityAt + 1)`, then `+ 1` per
   * turn in array order), chosen inside the write, and the conversation (with `userId`,
   * `agentId`, `tenantId`, `title`) is created if it is missing. Two calls racing on one session
   * therefore never interleave: each call's messages are contiguous in the transcript. A turn
   * whose id is already stored in the conversation keeps its stored timestamp and place, so a
   * retried call (same turn ids) is an idempotent upsert that keeps the transcript's order.
   * Resolves to the stored messages in input order. Throws `IntegrityError` when the
   * conversation belongs to another user or tenant, is soft-deleted, or its activity is at the
   * end of time (a new message's timestamp would exceed `Number.MAX_SAFE_INTEGER`, which one
   * message stored at that timestamp causes; nothing is stored).
   */
  storeSessionMessages(
    conversationId: string,
    turns: SessionTurn[],
    options: SessionOptions,
  ): Promise<Message[]>;

  /**
   * The whole live transcript in order (flagged messages included), read page by page; with
   * `compress`, long assistant messages shortened as in {@link getImmediateContext}. An unknown
   * conversation gives `[]`.
   */
  loadSessionMessages(conversationId: string, options?: LoadSessionOptions): Promise<Message[]>;

  /**
   * Upserts the trace of one turn. Its message must exist and belong to `conversationId`
   * (`IntegrityError`), a message has at most one trace (a second trace with another id for the
   * same message is an `IntegrityError`), a trace cannot move to another message, and `userId` /
   * `tenantId` follow the ownership rules above. A live trace on a soft-deleted message is an
   * `IntegrityError`.
   */
  storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace>;

  /**
   * Upserts several traces as consecutive {@link storeTurnTrace} calls in array order would (the
   * same rules and errors), for imports and migrations: one call instead of one per trace.
   * Resolves to the stored traces in input order; `[]` gives `[]`. The whole array is validated
   * first (`ValidationError`, nothing stored; the same id twice is one too). On an
   * `IntegrityError` the call rejects with the error of the first trace that breaks a rule and
   * nothing after it is stored; with `capabilities.atomicTraceBatches` (every built-in adapter)
   * nothing of the batch is stored, without it the traces before the failure may stay stored
   * (every write is an upsert, so retrying the call is safe). Views behave alike.
   */
  storeTurnTraces(traces: TurnTraceInput[]): Promise<TurnTrace[]>;

  /** Resolves to the trace of that message, or `null` (soft-deleted: only with `includeDeleted`). */
  getTurnTraceByMessageId(messageId: string, options?: ReadOptions): Promise<TurnTrace | null>;

  /**
   * An agent's traces, newest first: `timestamp` descending, then `id` descending. `since` is
   * inclusive, `until` exclusive.
   */
  getTurnTracesByAgentId(agentId: string, options?: AgentTraceOptions): Promise<Page<TurnTrace>>;

  /**
   * Traces matching every given filter, in the same order as {@link getTurnTracesByAgentId}.
   * `toolName` matches any tool trace, `model` any entry of the trace's `llmCalls` (model calls
   * nested in `toolTraces[].generationAttempts[].llmCall` are not matched), `userId` and
   * `tenantId` the trace's.
   */
  queryTurnTraces(query?: TurnTraceQueryInput): Promise<Page<TurnTrace>>;

  /**
   * Token, cost, latency and error totals per UTC hour or day over `[since, until)`, oldest bucket
   * first; empty buckets are omitted. Identical on every adapter. Every given filter applies
   * (`agentId` and `userId` and `tenantId` together). Token and cost sums count the entries of
   * `llmCalls` only; model calls nested in `toolTraces[].generationAttempts[].llmCall` are
   * recorded for inspection and never counted (they would otherwise be counted twice by agents
   * that also list them in `llmCalls`).
   */
  summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]>;

  /**
   * Right to erasure: deletes every conversation of the user (of one tenant, with `tenantId`),
   * soft-deleted ones included, with their messages, traces and checkpoints, and resolves to the
   * counts removed. Zero counts for an unknown user.
   */
  deleteUserData(userId: string, options?: DeleteUserDataOptions): Promise<DeletedCounts>;

  /**
   * Messages ranked by cosine similarity to `embedding` (highest first, ties by id ascending,
   * score rounded to 1e-9). The filters (`userId`, `tenantId`, `conversationId`) apply before
   * ranking, to each message as stored now. Flagged and soft-deleted messages, messages whose
   * embedding is `null`, and embeddings of another length are skipped. Core does the rounding,
   * the ordering and the `limit` cut: an adapter's `_searchMessages` returns raw cosine scores,
   * in any order, at least the `limit` best of them.
   * Throws `UnsupportedOperationError` unless `capabilities.semanticSearch`.
   */
  searchMessages(query: SearchQueryInput): Promise<SearchHit[]>;

  /**
   * Text search: the conversations whose `title`, or the `originalContent` of one of whose
   * messages, contains `text`, most recent activity first (`lastActivityAt` descending, then `id`
   * ascending, as {@link getConversationsByUserId}), paged with cursors (`limit` 1–1000, default
   * 20). Each hit says whether the title matched and carries the newest matching message
   * (greatest `(timestamp, sequence)`), or `null` when only the title matched.
   *
   * Matching is a plain substring test, identical on every adapter: ASCII letters `A`–`Z` match
   * `a`–`z` and every other character only itself (no Unicode case folding, no normalization;
   * `%`, `_`, `*` and the like are literal). `text` is 1–1000 characters, taken as given (not
   * trimmed). The filters (`userId`, `tenantId`) apply to each conversation as stored, before
   * matching and paging. Soft-deleted conversations are not listed and soft-deleted messages do
   * not match, unless `includeDeleted: true` (then both are). Flagged messages match: they are
   * part of the transcript (the hit's message says `isFlagged`). An empty result is an empty
   * page, never an error. Through a view (`forUser`, `forTenant`) the view's scope is passed
   * down as the filters; a contradicting filter gives an empty page.
   *
   * Cost: a substring test cannot use an ordinary index, so a search reads the text of the
   * conversations it walks (newest activity first) until the page is full: a page of frequent
   * words is cheap, a rare or absent word reads every message in the filters' scope (a
   * sequential scan on PostgreSQL and MongoDB; memory on the JSON store). Narrow it with `userId`.
   * Throws `UnsupportedOperationError` unless `capabilities.textSearch`.
   */
  searchConversations(query: TextSearchQueryInput): Promise<Page<TextSearchHit>>;

  /**
   * Messages pending embedding, by `id` ascending (code-point order): live, with `embedding:
   * null`, of `roles` (default user and assistant), not flagged unless `includeFlagged`. Throws
   * `UnsupportedOperationError` unless `capabilities.embeddingQueue`.
   */
  listPendingEmbeddings(options?: PendingEmbeddingsOptions): Promise<Page<Message>>;

  /**
   * Sets each message's embedding if it still has that `originalContent` and is live (a message
   * whose text changed stays pending), atomically per message. Resolves to the number of
   * messages updated; unknown ids are skipped. Throws `UnsupportedOperationError` unless
   * `capabilities.embeddingQueue`.
   */
  setEmbeddings(updates: EmbeddingUpdateInput[]): Promise<number>;

  /**
   * Stores a checkpoint of the thread `checkpoint.conversationId`, in one atomic write with what
   * it adds to the transcript: creates the conversation when it is missing (owner, agent, tenant
   * and title from `options`, as {@link storeSessionMessages} does), stores `options.messages` as
   * `storeSessionMessages` stores turns (timestamps after the conversation's activity, a turn
   * already stored keeping its place) and `options.traces` as {@link storeTurnTraces} (all or
   * nothing), stores the channel values the checkpoint changed (`checkpoint.values`; a value
   * already stored for that channel and version in the thread's namespace is kept) and upserts the
   * checkpoint by conversation, namespace and id. All or nothing: on any error nothing is stored.
   * Throws `ValidationError`, `IntegrityError` when the conversation belongs to another owner or
   * is soft-deleted or a message or trace breaks a rule (through a view: `NotFoundError` for
   * another owner's thread), and `UnsupportedOperationError` unless `capabilities.checkpoints`.
   */
  putCheckpoint(checkpoint: CheckpointInput, options: CheckpointPutOptions): Promise<void>;

  /**
   * Stores the pending writes of one task against a checkpoint of the thread, creating the
   * conversation when it is missing (as {@link putCheckpoint}); the checkpoint itself need not
   * be stored yet. A write with a negative `idx` replaces the task's stored write of that index;
   * one with `idx ≥ 0` leaves a stored one as it is (a retried task keeps its first result). All
   * or nothing. Throws as {@link putCheckpoint} does.
   */
  putCheckpointWrites(writes: CheckpointWritesInput, options: SessionOptions): Promise<void>;

  /**
   * The checkpoint `options.id` of the thread's namespace (default `""`), or without an id the
   * latest one (greatest id in code-point order), with its channel values and pending writes (see
   * {@link StoredCheckpoint} for their order). Resolves `null` when there is none, or the
   * conversation does not exist, is another owner's (through a view) or is soft-deleted. Throws
   * `UnsupportedOperationError` unless `capabilities.checkpoints`.
   */
  getCheckpoint(
    conversationId: string,
    options?: CheckpointReadOptions,
  ): Promise<StoredCheckpoint | null>;

  /**
   * Checkpoints newest first: `id` descending (code points), then `conversationId` and `namespace`
   * descending, each as {@link getCheckpoint} returns it. Every given filter applies: one thread
   * (`conversationId`), one `namespace`, ids before `before`, `metadata` (each key equal as JSON),
   * and the owners of the thread (`userId`, `tenantId`). Soft-deleted conversations' checkpoints
   * are not listed. Paged like every list. Throws `UnsupportedOperationError` unless
   * `capabilities.checkpoints`.
   */
  listCheckpoints(query?: CheckpointQueryInput): Promise<Page<StoredCheckpoint>>;

  /**
   * Deletes every checkpoint, channel value and pending write of the thread (soft-deleted or
   * not), atomically, and keeps the conversation and its transcript (`deleteConversation` deletes
   * everything). Resolves `false` when there is no such conversation. Throws
   * `UnsupportedOperationError` unless `capabilities.checkpoints`.
   */
  deleteCheckpoints(conversationId: string): Promise<boolean>;

  /**
   * A view confined to one user's records: another user's record reads exactly like one that does
   * not exist (`null`, empty pages, zero counts), and writing to it throws `NotFoundError`. The
   * scope travels inside every request, so the backend applies it in the same statement as the
   * read or write (no extra round trip, no window between a check and the operation). Lists,
   * analytics and search take the user as a filter; records written through the view get its
   * user (another one is a `ValidationError`). Views compose: a view's `forUser` and `forTenant`
   * narrow it further (another user than the view's is a `ValidationError`). The view shares the
   * store's connection and lifetime: closing either closes both.
   */
  forUser(userId: string): MessageStoreApi;

  /**
   * A view confined to one tenant, like {@link forUser}: records are in it by their `tenantId`,
   * and conversations stored through it get the tenant. Throws `UnsupportedOperationError` unless
   * `capabilities.tenants`.
   */
  forTenant(tenantId: string): MessageStoreApi;
}
