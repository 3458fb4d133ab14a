import {
  type MessageStoreError,
  NotFoundError,
  StorageError,
  scrubCause,
  UnsupportedOperationError,
} from "./errors.js";
import type { StoreCapabilities } from "./message-store-api.js";
import type { Conversation, ConversationRecord } from "./models/conversation.js";
import type { Message } from "./models/message.js";
import type {
  ConversationFilter,
  DeletedCounts,
  PendingEmbeddingsFilter,
  Scope,
  SearchHit,
  SearchQuery,
  TurnTraceFilter,
  UsageBucket,
  UsageQuery,
} from "./models/queries.js";
import type { EmbeddingUpdate } from "./models/session.js";
import type { TextSearchFilter, TextSearchHit } from "./models/text-search.js";
import type { TurnTrace } from "./models/turn-trace.js";
import type { ConversationKey, MessageKey, TraceKey } from "./paging/cursor.js";
import type { PageRequest } from "./paging/page-request.js";
import { redactSecrets } from "./redact.js";

/** A message with the store-assigned receipt order that breaks timestamp ties. */
export interface SequencedMessage {
  message: Message;
  sequence: number;
}

/** Options of a read by id: `includeDeleted` says whether a soft-deleted record is returned. */
export interface ReadRequest {
  includeDeleted: boolean;
}

/** What `_storeMessages` gets besides the batch. */
export interface StoreMessagesOptions {
  /**
   * `storeSessionMessages`: every message of the batch belongs to this conversation, which the
   * same write creates (as `_storeConversation` would) if it does not exist. An existing one is
   * left as it is, and the ownership rules are checked against it.
   */
  ensureConversation?: ConversationRecord;
}

/**
 * What an adapter implements: one protected hook per method of `MessageStoreApi`, named after it
 * with a leading underscore (`getConversation` → `_getConversation`), behind `MessageStore`'s
 * public methods.
 *
 * What core does, so hooks don't: validate every argument and fill defaults (a hook only sees
 * valid records and plain-string ids), reject calls after `close()`, wait for calls in flight
 * before `_close`, turn the rows a list hook returns into pages and cursors (ask for `take` rows
 * after `after`), apply compression, round and re-sort search scores, build scoped views. Any
 * error a hook throws reaches the caller as core's: an error of core's classes gets this
 * adapter's name (`[message-store] [name] …`) if it has none, and anything else goes through
 * {@link mapError}.
 *
 * What hooks must do: throw `IntegrityError` for the contract's integrity rules (documented on
 * each hook and on `MessageStoreApi`), `ConnectionError` for a lost backend, `CorruptDataError`
 * for stored data that fails the model (core's `canonical*` checks and schemas tell), and keep
 * every write atomic as seen through the API: each rule is checked inside the write it guards,
 * never by a read before it, so concurrent writers cannot slip between check and write. The
 * conformance suite (`@message-store/conformance`) checks it end to end.
 *
 * The rules every write hook keeps (see `MessageStoreApi` for the caller's view):
 * - ownership: a conversation's `userId`/`tenantId` never change; a message's `userId` equals its
 *   conversation's and its `tenantId` is the conversation's (`null` filled); a trace's `userId`
 *   and `tenantId` are the conversation's (`null` filled); nothing moves to another parent.
 * - soft delete: reads exclude records with `deletedAt` unless asked; an existing record's
 *   `deletedAt` changes only through the soft-delete hooks; no live record is written into a
 *   soft-deleted conversation, nor a live trace onto a soft-deleted message.
 * - embeddings: an upsert that changes `originalContent` and passes the stored embedding stores
 *   `embedding: null` (stale); the record returned says so.
 *
 * Optional capabilities (`semanticSearch`, `softDelete`, `tenants`, `embeddingQueue`, `textSearch`): core only
 * calls the hooks behind one when the adapter declares it, and never passes a `tenantId` filter
 * or a record with a `tenantId` (or `deletedAt`) to an adapter without `tenants` (`softDelete`).
 */
export abstract class MessageStoreHooks {
  /** Short adapter name, used as the error prefix: `[message-store] [name] …`. */
  abstract readonly adapterName: string;
  /** Optional capabilities; override to declare `semanticSearch`, `softDelete`, … */
  readonly capabilities: StoreCapabilities = { semanticSearch: false };

  /**
   * Upserts by id, replacing every field but the store's own activity data (the newest message
   * timestamp ever stored in it). Resolves to the conversation as a read returns it, with
   * `lastActivityAt = max(updatedAt, newest message timestamp ever stored)`. `IntegrityError`
   * (nothing stored) when it exists with another `userId` or `tenantId`, or with another
   * `deletedAt`.
   */
  protected abstract _storeConversation(conversation: ConversationRecord): Promise<Conversation>;

  /** The conversation, or `null` (also when soft-deleted and not `options.includeDeleted`). */
  protected abstract _getConversation(
    id: string,
    options: ReadRequest,
  ): Promise<Conversation | null>;

  /**
   * The user's conversations matching `filter` (`tenantId` when given; soft-deleted ones only
   * with `includeDeleted`) after `page.after` in `(lastActivityAt desc, id asc)` order, at most
   * `page.take`, read atomically (one consistent snapshot).
   */
  protected abstract _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
    filter: ConversationFilter,
  ): Promise<Conversation[]>;

  /**
   * Conversations (of `userId` when not null) matching `filter` with id after `page.after`, by id
   * ascending in code-point order (`compareIds`), at most `page.take`.
   */
  protected abstract _listConversations(
    userId: string | null,
    page: PageRequest<string>,
    filter: ConversationFilter,
  ): Promise<Conversation[]>;

  /**
   * Deletes the conversation with its messages and their traces (soft-deleted or not), all or
   * nothing: a concurrent reader sees all of it or none of it, and nothing is left behind.
   * `false` when absent.
   */
  protected abstract _deleteConversation(id: string): Promise<boolean>;

  /**
   * Only called when `capabilities.softDelete`. Sets `deletedAt` on the live conversation and on
   * its live messages and traces, in one atomic write, to `max(deletedAt, 1 + the greatest
   * deletedAt among its messages and traces)`, so that a restore can tell what was deleted with
   * it. `false` when absent or already soft-deleted.
   */
  protected _softDeleteConversation(_id: string, _deletedAt: number): Promise<boolean> {
    return unsupported("soft delete");
  }

  /**
   * Only called when `capabilities.softDelete`. Clears `deletedAt` on the soft-deleted
   * conversation and on its messages and traces whose `deletedAt` equals the conversation's, in
   * one atomic write. `false` when absent or live.
   */
  protected _restoreConversation(_id: string): Promise<boolean> {
    return unsupported("soft delete");
  }

  /**
   * Upserts a batch (ids unique, at least one) all or nothing, and resolves to it in input order
   * as stored (`tenantId` filled, a stale embedding cleared). Every message's conversation must
   * exist (or be `options.ensureConversation`, created by this write), the ownership and
   * soft-delete rules hold, and an existing message must not change conversation
   * (`IntegrityError`, nothing stored). A new message gets the next receipt sequence, in array
   * order; an upsert keeps its sequence. Conversation activity (the newest timestamp ever
   * stored) only moves forward.
   */
  protected abstract _storeMessages(
    messages: Message[],
    options: StoreMessagesOptions,
  ): Promise<Message[]>;

  /** The message, or `null` (also when soft-deleted and not `options.includeDeleted`). */
  protected abstract _getMessage(id: string, options: ReadRequest): Promise<Message | null>;

  /**
   * Sets `isFlagged` on a live message; resolves to the updated message, or `null` when there is
   * none or it is soft-deleted (core throws `NotFoundError`).
   */
  protected abstract _flagMessage(id: string, flagged: boolean): Promise<Message | null>;

  /**
   * Only called when `capabilities.softDelete`. Sets `deletedAt` on the live message and its
   * trace, atomically. `false` when absent or already soft-deleted.
   */
  protected _softDeleteMessage(_id: string, _deletedAt: number): Promise<boolean> {
    return unsupported("soft delete");
  }

  /**
   * Only called when `capabilities.softDelete`. Clears `deletedAt` on the soft-deleted message
   * and on its trace if deleted with it (same `deletedAt`). `false` when absent or live;
   * `IntegrityError` while its conversation is soft-deleted.
   */
  protected _restoreMessage(_id: string): Promise<boolean> {
    return unsupported("soft delete");
  }

  /**
   * Deletes the message and its trace (soft-deleted or not), atomically; the conversation's
   * activity is unchanged. `false` when absent.
   */
  protected abstract _deleteMessage(id: string): Promise<boolean>;

  /**
   * Only called when `capabilities.softDelete`. Hard-deletes, in one atomic write, every record
   * in `scope` (see {@link Scope}) soft-deleted before `before`: such conversations with
   * everything in them, such messages with their traces, such traces. Resolves to exact counts.
   */
  protected _purgeDeleted(_before: number, _scope: Scope): Promise<DeletedCounts> {
    return unsupported("soft delete");
  }

  /**
   * The conversation's messages after `page.after` in `(timestamp, sequence)` order, at most
   * `page.take`; soft-deleted ones only with `options.includeDeleted`.
   */
  protected abstract _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
    options: ReadRequest,
  ): Promise<SequencedMessage[]>;

  /**
   * The newest `n` (≥ 1) live, non-flagged messages by `(timestamp, sequence)`, returned oldest
   * first.
   */
  protected abstract _getImmediateContext(conversationId: string, n: number): Promise<Message[]>;

  /**
   * Upserts by id and resolves to the trace as stored (`userId`/`tenantId` filled). The message
   * must exist in `conversationId`, may have no trace with another id, an existing trace may not
   * move to another message, and the ownership and soft-delete rules hold (`IntegrityError`,
   * nothing stored).
   */
  protected abstract _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace>;

  /**
   * Upserts traces (ids unique) as consecutive {@link _storeTurnTrace} calls would, resolving in
   * input order. The default does exactly that, stopping at the first error (the traces before
   * it stay stored), so an adapter without an override keeps working. Override it with one
   * set-based write where the backend allows: all or nothing, the same rules and errors, the
   * error of the first trace (in array order) that breaks a rule.
   */
  protected async _storeTurnTraces(traces: TurnTrace[]): Promise<TurnTrace[]> {
    const stored: TurnTrace[] = [];
    for (const trace of traces) stored.push(await this._storeTurnTrace(trace));
    return stored;
  }

  /** The trace of that message, or `null` (soft-deleted only with `options.includeDeleted`). */
  protected abstract _getTurnTraceByMessageId(
    messageId: string,
    options: ReadRequest,
  ): Promise<TurnTrace | null>;

  /**
   * Traces matching every filter of `filter` (core's `matchesTraceFilter` is the reference) after
   * `page.after` in `(timestamp desc, id desc)` order, at most `page.take`. Serves
   * `getTurnTracesByAgentId` and `queryTurnTraces`.
   */
  protected abstract _queryTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]>;

  /**
   * Usage buckets of the traces matching `query` (`matchesUsageQuery`). Compute them with core's
   * `summarizeTraces`, or aggregate in the backend and finish with `finalizeUsage`, so numbers
   * match other adapters exactly.
   */
  protected abstract _summarizeUsage(query: UsageQuery): Promise<UsageBucket[]>;

  /**
   * Deletes every conversation of the user (of `filter.tenantId` when given; soft-deleted ones
   * included) with their messages and traces, all or nothing, and resolves to the exact counts
   * removed.
   */
  protected abstract _deleteUserData(
    userId: string,
    filter: { tenantId?: string },
  ): Promise<DeletedCounts>;

  /**
   * Only called when `capabilities.semanticSearch`: at least the top `query.limit` non-flagged
   * (and, unless `includeDeleted`, live) messages with an embedding of the query's length,
   * under its filters (applied before ranking), with their cosine similarity
   * (`cosineSimilarity`). Core rounds, re-sorts and cuts.
   */
  protected _searchMessages(_query: SearchQuery): Promise<SearchHit[]> {
    return unsupported("semantic search");
  }

  /**
   * Only called when `capabilities.textSearch`. Conversations in the filter's scope (`userId`,
   * `tenantId`; soft-deleted ones only with `includeDeleted`) whose title or some message
   * (live unless `includeDeleted`, flagged or not) contains `filter.text` as core's
   * `containsFolded(text, foldAscii(filter.text))` decides, after `page.after` in
   * `(lastActivityAt desc, id asc)` order, at most `page.take`; each with `titleMatch` and the
   * newest matching message by `(timestamp, sequence)` (or `null`). Don't load the store into
   * memory: stop walking once `page.take` hits are found.
   */
  protected _searchConversations(
    _filter: TextSearchFilter,
    _page: PageRequest<ConversationKey>,
  ): Promise<TextSearchHit[]> {
    return unsupported("text search");
  }

  /**
   * Only called when `capabilities.embeddingQueue`. Pending messages (live, `embedding` null, a
   * role of `filter.roles`, not flagged unless `filter.includeFlagged`, in the filter's scope)
   * with id after `page.after`, by id ascending (`compareIds`), at most `page.take`.
   */
  protected _listPendingEmbeddings(
    _filter: PendingEmbeddingsFilter,
    _page: PageRequest<string>,
  ): Promise<Message[]> {
    return unsupported("the embedding queue");
  }

  /**
   * Only called when `capabilities.embeddingQueue`. For each update (ids unique), atomically per
   * message: sets `embedding` if the message exists, is live and its `originalContent` equals
   * the update's. Resolves to how many were set.
   */
  protected _setEmbeddings(_updates: EmbeddingUpdate[]): Promise<number> {
    return unsupported("the embedding queue");
  }

  /** Releases resources. Called once, after calls in flight settled. */
  protected abstract _close(): Promise<void>;

  /**
   * Turns an error a hook threw that is not one of core's into one: override it to map your
   * driver's errors (lost connection → `ConnectionError`, disk full → `StorageError`, …). The
   * default is a `StorageError` whose message and cause are scrubbed of passwords. Core stamps
   * the adapter name on the result.
   */
  protected mapError(error: unknown): MessageStoreError {
    const text = redactSecrets(error instanceof Error ? error.message : String(error));
    return new StorageError(`unexpected error: ${text}`, { cause: scrubCause(error) });
  }

  /** A `NotFoundError` with this adapter's prefix. */
  protected notFound(message: string): NotFoundError {
    return new NotFoundError(message, { adapter: this.adapterName });
  }
}

function unsupported(what: string): Promise<never> {
  return Promise.reject(new UnsupportedOperationError(`${what} is not implemented`));
}
