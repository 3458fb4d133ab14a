import type { MessageStoreError } from "../errors.js";
import type {
  CheckpointFilter,
  CheckpointRecord,
  CheckpointWritesRecord,
  StoredCheckpoint,
} from "../models/checkpoint.js";
import type { Conversation, ConversationRecord } from "../models/conversation.js";
import type { Message } from "../models/message.js";
import type {
  DeletedCounts,
  PendingEmbeddingsFilter,
  Scope,
  SearchHit,
  SearchQuery,
  TurnTraceFilter,
  UsageBucket,
  UsageQuery,
} from "../models/queries.js";
import type { EmbeddingUpdate } from "../models/session.js";
import type { TextSearchFilter, TextSearchHit } from "../models/text-search.js";
import type { TurnTrace } from "../models/turn-trace.js";
import type { CheckpointKey, ConversationKey, MessageKey, TraceKey } from "../paging/cursor.js";
import type { PageRequest } from "../paging/page-request.js";
import type { StoreCapabilities } from "./message-store-api.js";

/** What every driver request carries: the records it may see and touch (see {@link Scope}). */
export interface DriverRequest {
  readonly scope: Scope;
}

/** A call on one record by id. */
export interface ByIdRequest extends DriverRequest {
  readonly id: string;
}

/** A read by id: `includeDeleted` says whether a soft-deleted record is returned. */
export interface ReadByIdRequest extends ByIdRequest {
  readonly includeDeleted: boolean;
}

/** A conversation list: soft-deleted ones only with `includeDeleted`. */
export interface ConversationPageRequest<K> extends DriverRequest {
  readonly includeDeleted: boolean;
  readonly page: PageRequest<K>;
}

/** A message with the store-assigned receipt order that breaks timestamp ties. */
export interface SequencedMessage {
  message: Message;
  sequence: number;
}

/** Filters of a trace list besides the owners, which travel as the request's scope. */
export type TraceFilter = Omit<TurnTraceFilter, "userId" | "tenantId">;

/**
 * What an adapter implements: one method per operation of `MessageStoreApi`, each taking one
 * request object and resolving to plain records. `MessageStore` wraps a driver
 * (`new MessageStore(driver)`) and keeps what is the same for every backend; a view
 * (`forUser`, `forTenant`) is a `MessageStore` over the same driver with a narrower scope.
 *
 * What core does, so drivers don't: validate and copy every argument once (a driver only sees
 * valid records and plain-string ids, never an object the caller holds), fill the owner of
 * records written through a view, reject calls after `close()`, wait for calls in flight before
 * `close`, turn the rows a list returns into pages and cursors (ask for `take` rows after
 * `after`), compress, round and re-sort search scores, answer a view's refusal as `NotFoundError`
 * (see {@link ownerRefusal}), and check capabilities before any call. Any error a driver throws
 * reaches the caller as core's: an error of core's classes gets the driver's `name`
 * (`[message-store] [name] …`) if it has none, and anything else goes through {@link mapError}.
 *
 * **The scope.** Every request carries a `scope` (`{}`, or a `userId` and/or a `tenantId`):
 * the request may only see and touch records whose own `userId`/`tenantId` equal the scope's.
 * Enforce it in the same statement or transaction as the read or write, never by a read before
 * it. A record outside the scope is absent for that request: a read by id resolves `null`, a
 * list leaves it out, a delete, flag or restore by id resolves `false` (`null`), a transcript or
 * context window of an out-of-scope conversation is empty. For lists, analytics, search and
 * erasure the scope *is* the owner filter (core merges the caller's `userId`/`tenantId` filter
 * with a view's). Records written through a view already carry the view's owners, so the
 * ownership rules below refuse writes into another owner's records.
 *
 * **The rules every write keeps**, atomically inside the write (`IntegrityError`, nothing
 * stored; see `MessageStoreApi` for the caller's view). They hold on every adapter:
 * - ownership: a conversation's `userId`/`tenantId` never change; a message's `userId` equals its
 *   conversation's and its `tenantId` is the conversation's (`null` filled); a trace's `userId`
 *   and `tenantId` are the conversation's (`null` filled); nothing moves to another parent.
 *   Refuse a write that names a missing conversation (or, for a trace, a missing message), or a
 *   record stored under another owner, with {@link ownerRefusal} (a view then answers "does not
 *   exist", the same for both). Check ownership before the other rules, so a view never learns
 *   that another owner's record exists: for a trace, the conversation's owner, then the message's,
 *   then the message's conversation, then the trace id's owner.
 * - soft delete: reads exclude records with `deletedAt` unless asked; an existing record's
 *   `deletedAt` changes only through the soft-delete methods; no live record is written into a
 *   soft-deleted conversation, nor a live trace onto a soft-deleted message.
 * - embeddings: an upsert that changes `originalContent` and passes the stored embedding stores
 *   `embedding: null` (stale); the record returned says so.
 *
 * Errors: throw `IntegrityError` for the rules, `ConnectionError` for a lost backend,
 * `CorruptDataError` for stored data that fails the model (`readStored` tells). Optional methods
 * are called only when `capabilities` declares them (`MessageStore` checks at construction that
 * a declared capability has its methods). The conformance suite (`@message-store/conformance`)
 * checks all of it end to end.
 */
export interface MessageStoreDriver {
  /** Short adapter name, used as the error prefix: `[message-store] [name] …`. */
  readonly name: string;
  /** Optional capabilities; see `StoreCapabilities`. */
  readonly capabilities: StoreCapabilities;

  /**
   * Upserts by id, replacing every field but the store's own activity data (the newest message
   * timestamp ever stored in it). Resolves to it as a read returns it, with `lastActivityAt =
   * max(updatedAt, newest message timestamp ever stored)`. Refuses (nothing stored) when it
   * exists with another `userId` or `tenantId` ({@link ownerRefusal}) or another `deletedAt`.
   */
  storeConversation(
    request: DriverRequest & { conversation: ConversationRecord },
  ): Promise<Conversation>;

  /** The conversation, or `null` (also when soft-deleted and not `includeDeleted`). */
  getConversation(request: ReadByIdRequest): Promise<Conversation | null>;

  /**
   * The conversations of `scope.userId` (always set) after `page.after` in `(lastActivityAt desc,
   * id asc)` order, at most `page.take`, read atomically (one consistent snapshot).
   */
  getConversationsByUserId(
    request: ConversationPageRequest<ConversationKey> & { scope: { userId: string } },
  ): Promise<Conversation[]>;

  /**
   * Conversations in the scope with id after `page.after`, by id ascending in code-point order
   * (`compareIds`), at most `page.take`.
   */
  listConversations(request: ConversationPageRequest<string>): Promise<Conversation[]>;

  /**
   * Deletes the conversation with its messages and their traces (soft-deleted or not), all or
   * nothing: a concurrent reader sees all of it or none of it, and nothing is left behind.
   * `false` when absent. With `checkpoints`, its checkpoints, channel values and pending writes
   * go with it (so do they in `purgeDeleted` and `deleteUserData`).
   */
  deleteConversation(request: ByIdRequest): Promise<boolean>;

  /**
   * `softDelete`. Sets `deletedAt` on the live conversation and on its live messages and traces,
   * in one atomic write, to `max(deletedAt, 1 + the greatest deletedAt among its messages and
   * traces)`, so that a restore can tell what was deleted with it. `false` when absent or already
   * soft-deleted. Its checkpoints (with `checkpoints`) are hidden while it is soft-deleted.
   */
  softDeleteConversation?(request: ByIdRequest & { deletedAt: number }): Promise<boolean>;

  /**
   * `softDelete`. Clears `deletedAt` on the soft-deleted conversation and on its messages and
   * traces whose `deletedAt` equals the conversation's, in one atomic write. `false` when absent
   * or live.
   */
  restoreConversation?(request: ByIdRequest): Promise<boolean>;

  /**
   * Upserts a batch (ids unique, at least one) all or nothing, and resolves to it in input order
   * as stored (`tenantId` filled, a stale embedding cleared). Every message's conversation must
   * exist, the ownership and soft-delete rules hold, and an existing message must not change
   * conversation (nothing stored otherwise). A new message gets the next receipt sequence, in
   * array order; an upsert keeps its sequence. Conversation activity (the newest timestamp ever
   * stored) only moves forward, also when an upsert moves a message forward.
   */
  storeMessages(request: DriverRequest & { messages: readonly Message[] }): Promise<Message[]>;

  /**
   * `storeSessionMessages`: like {@link storeMessages} for messages of one conversation, which
   * the same atomic write creates from `conversation` if it is missing (an existing one is left
   * as it is and the ownership rules are checked against it). Inside that write, under the same
   * lock as the messages, the timestamps are chosen: each message whose id is already stored in
   * the conversation keeps its stored timestamp (and its place); each other message `i` (array
   * index) gets `start + i`, where `start = max(now, lastActivityAt + 1)` of the conversation at
   * that moment (`now` for a new one). Core passes `timestamp = now + i`, so `start - now` is the
   * shift to add. Concurrent calls on one session therefore never interleave, and a retry keeps
   * the stored order. A new message's timestamp past `Number.MAX_SAFE_INTEGER` refuses the whole
   * write inside it (`checkSessionTimestamps` from `@message-store/core/adapter`).
   */
  storeSessionMessages(
    request: DriverRequest & {
      conversation: ConversationRecord;
      messages: readonly Message[];
      now: number;
    },
  ): Promise<Message[]>;

  /** The message, or `null` (also when soft-deleted and not `includeDeleted`). */
  getMessage(request: ReadByIdRequest): Promise<Message | null>;

  /**
   * Sets `isFlagged` on a live message; resolves to the updated message, or `null` when there is
   * none or it is soft-deleted (core throws `NotFoundError`).
   */
  flagMessage(request: ByIdRequest & { flagged: boolean }): Promise<Message | null>;

  /**
   * `softDelete`. Sets `deletedAt` on the live message and its live trace, atomically. `false`
   * when absent or already soft-deleted.
   */
  softDeleteMessage?(request: ByIdRequest & { deletedAt: number }): Promise<boolean>;

  /**
   * `softDelete`. Clears `deletedAt` on the soft-deleted message and on its trace if deleted with
   * it (same `deletedAt`). `false` when absent or live; `IntegrityError` while its conversation
   * is soft-deleted.
   */
  restoreMessage?(request: ByIdRequest): Promise<boolean>;

  /**
   * Deletes the message and its trace (soft-deleted or not), atomically; the conversation's
   * activity is unchanged. `false` when absent.
   */
  deleteMessage(request: ByIdRequest): Promise<boolean>;

  /**
   * `softDelete`. Hard-deletes, in one atomic write, every record in the scope soft-deleted
   * strictly before `before` (a record deleted at `before` stays): such conversations with
   * everything in them, such messages with their traces, such traces. Resolves to exact counts.
   */
  purgeDeleted?(request: DriverRequest & { before: number }): Promise<DeletedCounts>;

  /**
   * The conversation's messages after `page.after` in `(timestamp, sequence)` order, at most
   * `page.take`; soft-deleted ones only with `includeDeleted`.
   */
  getMessagesByConversationId(
    request: DriverRequest & {
      conversationId: string;
      includeDeleted: boolean;
      page: PageRequest<MessageKey>;
    },
  ): Promise<SequencedMessage[]>;

  /**
   * The newest `n` (≥ 1) live, non-flagged messages by `(timestamp, sequence)`, returned oldest
   * first.
   */
  getImmediateContext(
    request: DriverRequest & { conversationId: string; n: number },
  ): Promise<Message[]>;

  /**
   * Upserts traces (ids unique, at least one) as consecutive single writes in array order would,
   * resolving in input order as stored (`userId`/`tenantId` filled). Each trace's message must
   * exist in its `conversationId`, may have no trace with another id, an existing trace may not
   * move to another message, and the ownership and soft-delete rules hold. On a refusal, throw the
   * error of the first trace (in array order) that breaks a rule. With
   * `capabilities.atomicTraceBatches` nothing of the batch is stored then; without it the traces
   * before that one may stay stored (and none after it).
   */
  storeTurnTraces(request: DriverRequest & { traces: readonly TurnTrace[] }): Promise<TurnTrace[]>;

  /** The trace of that message, or `null` (soft-deleted only with `includeDeleted`). */
  getTurnTraceByMessageId(request: ReadByIdRequest): Promise<TurnTrace | null>;

  /**
   * Traces in the scope matching every filter (core's `matchesTraceFilter` is the reference)
   * after `page.after` in `(timestamp desc, id desc)` order, at most `page.take`.
   */
  queryTurnTraces(
    request: DriverRequest & { filter: TraceFilter; page: PageRequest<TraceKey> },
  ): Promise<TurnTrace[]>;

  /**
   * Usage buckets of the traces in the scope matching `query` (`matchesUsageQuery`). Compute them
   * with core's `summarizeTraces`, or aggregate in the backend and finish with `finalizeUsage`,
   * so numbers match other adapters exactly.
   */
  summarizeUsage(
    request: DriverRequest & { query: Omit<UsageQuery, "userId" | "tenantId"> },
  ): Promise<UsageBucket[]>;

  /**
   * Deletes every conversation in the scope (`scope.userId` is always set; soft-deleted ones
   * included) with their messages and traces, all or nothing, and resolves to the exact counts
   * removed.
   */
  deleteUserData(request: DriverRequest & { scope: { userId: string } }): Promise<DeletedCounts>;

  /**
   * `semanticSearch`: at least the top `query.limit` non-flagged (and, unless `includeDeleted`,
   * live) messages in the scope with an embedding of the query's length, under its filters
   * (applied before ranking), with their cosine similarity (`cosineSimilarity`). Core rounds,
   * re-sorts and cuts.
   */
  searchMessages?(
    request: DriverRequest & { query: Omit<SearchQuery, "userId" | "tenantId"> },
  ): Promise<SearchHit[]>;

  /**
   * `textSearch`. Conversations in the scope (soft-deleted ones only with `includeDeleted`) whose
   * title or some message (live unless `includeDeleted`, flagged or not) contains `filter.text`
   * as core's `containsFolded(text, foldAscii(filter.text))` decides, after `page.after` in
   * `(lastActivityAt desc, id asc)` order, at most `page.take`; each with `titleMatch` and the
   * newest matching message by `(timestamp, sequence)` (or `null`). Don't load the store into
   * memory: stop walking once `page.take` hits are found.
   */
  searchConversations?(
    request: DriverRequest & {
      filter: Omit<TextSearchFilter, "userId" | "tenantId">;
      page: PageRequest<ConversationKey>;
    },
  ): Promise<TextSearchHit[]>;

  /**
   * `embeddingQueue`. Pending messages in the scope (live, `embedding` null, a role of
   * `filter.roles`, not flagged unless `filter.includeFlagged`) with id after `page.after`, by id
   * ascending (`compareIds`), at most `page.take`.
   */
  listPendingEmbeddings?(
    request: DriverRequest & {
      filter: Omit<PendingEmbeddingsFilter, "userId" | "tenantId">;
      page: PageRequest<string>;
    },
  ): Promise<Message[]>;

  /**
   * `embeddingQueue`. For each update (ids unique), atomically per message: sets `embedding` if
   * the message exists, is in the scope, is live and its `originalContent` equals the update's.
   * Resolves to how many were set.
   */
  setEmbeddings?(request: DriverRequest & { updates: readonly EmbeddingUpdate[] }): Promise<number>;

  /**
   * `checkpoints`. In one atomic write, all or nothing: creates the conversation from
   * `conversation` when it is missing, or checks the ownership rules against the existing one
   * ({@link ownerRefusal} for another owner, `IntegrityError` when it is soft-deleted), exactly
   * as {@link storeSessionMessages}; stores `messages` as `storeSessionMessages` does (timestamps
   * chosen inside the write, same rules), then `traces` as {@link storeTurnTraces} with
   * `atomicTraceBatches`; then each of `checkpoint.values` unless a value is already stored for
   * that conversation, namespace, channel and version (it is kept); then upserts the checkpoint by
   * `(conversationId, namespace, id)`, replacing every field. Both lists may be empty: the
   * checkpoint alone is then one write.
   */
  putCheckpoint?(
    request: DriverRequest & {
      conversation: ConversationRecord;
      checkpoint: CheckpointRecord;
      messages: readonly Message[];
      traces: readonly TurnTrace[];
      now: number;
    },
  ): Promise<void>;

  /**
   * `checkpoints`. In one atomic write: creates or checks the conversation as {@link putCheckpoint}
   * does, then stores each write by `(conversationId, namespace, checkpointId, taskId, idx)`: a
   * write with a negative `idx` replaces a stored one with that key, one with `idx ≥ 0` leaves a
   * stored one as it is. The checkpoint need not exist (LangGraph writes a task's results while
   * the put of its checkpoint may still be in flight); writes are deleted with their thread.
   */
  putCheckpointWrites?(
    request: DriverRequest & { conversation: ConversationRecord; writes: CheckpointWritesRecord },
  ): Promise<void>;

  /**
   * `checkpoints`. The checkpoint `id` of the conversation's `namespace`, or with `id: null` the
   * one with the greatest id (`compareIds`), with its values and writes as {@link StoredCheckpoint}
   * says, read atomically. `null` when there is none, or the conversation is out of the scope or
   * soft-deleted.
   */
  getCheckpoint?(
    request: DriverRequest & { conversationId: string; namespace: string; id: string | null },
  ): Promise<StoredCheckpoint | null>;

  /**
   * `checkpoints`. The checkpoints of live conversations in the scope matching every filter
   * (`matchesMetadata` for `metadata`; `before` compares ids with `compareIds`), after
   * `page.after` in `compareCheckpointKeys` order (newest first), at most `page.take`, each as
   * {@link getCheckpoint} returns it, read atomically.
   */
  listCheckpoints?(
    request: DriverRequest & { filter: CheckpointFilter; page: PageRequest<CheckpointKey> },
  ): Promise<StoredCheckpoint[]>;

  /**
   * `checkpoints`. Deletes the checkpoints, channel values and pending writes of the conversation
   * `id` (soft-deleted or not) atomically, and keeps the conversation. `false` when there is no
   * such conversation in the scope.
   */
  deleteCheckpoints?(request: ByIdRequest): Promise<boolean>;

  /** Releases resources. Called once, after calls in flight settled. */
  close(): Promise<void>;

  /**
   * Turns an error the driver threw that is not one of core's into one: map your driver's errors
   * (lost connection → `ConnectionError`, disk full → `StorageError`, …). For an error it does not
   * know (or without this method), core makes a `StorageError` whose message and cause are
   * scrubbed of passwords. Core stamps the name.
   */
  mapError?(error: unknown): MessageStoreError | undefined;
}

/** The operations of a driver: every method but the plumbing. */
export type DriverOperation = Exclude<
  keyof MessageStoreDriver,
  "name" | "capabilities" | "close" | "mapError"
>;

/** The request one operation takes. */
export type RequestOf<K extends DriverOperation> = Parameters<
  NonNullable<MessageStoreDriver[K]>
>[0];

/** What one operation resolves to. */
export type ResultOf<K extends DriverOperation> = Awaited<
  ReturnType<NonNullable<MessageStoreDriver[K]>>
>;

/** The optional operations, by the capability that declares them. */
export const OPTIONAL_OPERATIONS = {
  softDeleteConversation: "softDelete",
  restoreConversation: "softDelete",
  softDeleteMessage: "softDelete",
  restoreMessage: "softDelete",
  purgeDeleted: "softDelete",
  searchMessages: "semanticSearch",
  searchConversations: "textSearch",
  listPendingEmbeddings: "embeddingQueue",
  setEmbeddings: "embeddingQueue",
  putCheckpoint: "checkpoints",
  putCheckpointWrites: "checkpoints",
  getCheckpoint: "checkpoints",
  listCheckpoints: "checkpoints",
  deleteCheckpoints: "checkpoints",
} as const satisfies {
  [K in DriverOperation as undefined extends MessageStoreDriver[K]
    ? K
    : never]: keyof StoreCapabilities;
};

/** Every operation, in the order of `MessageStoreApi`: the one list views, wrappers and doubles derive from. */
export const DRIVER_OPERATIONS = [
  "storeConversation",
  "getConversation",
  "getConversationsByUserId",
  "listConversations",
  "deleteConversation",
  "softDeleteConversation",
  "restoreConversation",
  "storeMessages",
  "storeSessionMessages",
  "getMessage",
  "flagMessage",
  "softDeleteMessage",
  "restoreMessage",
  "deleteMessage",
  "purgeDeleted",
  "getMessagesByConversationId",
  "getImmediateContext",
  "storeTurnTraces",
  "getTurnTraceByMessageId",
  "queryTurnTraces",
  "summarizeUsage",
  "deleteUserData",
  "searchMessages",
  "searchConversations",
  "listPendingEmbeddings",
  "setEmbeddings",
  "putCheckpoint",
  "putCheckpointWrites",
  "getCheckpoint",
  "listCheckpoints",
  "deleteCheckpoints",
] as const satisfies readonly DriverOperation[];

// Every operation is in the list: a method added to the interface and not here fails to compile.
type Missing = Exclude<DriverOperation, (typeof DRIVER_OPERATIONS)[number]>;
const everyOperationListed: [Missing] extends [never] ? true : Missing = true;
void everyOperationListed;
