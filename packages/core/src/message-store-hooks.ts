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
  DeletedCounts,
  SearchHit,
  SearchQuery,
  TurnTraceFilter,
  UsageBucket,
  UsageQuery,
} from "./models/queries.js";
import type { TurnTrace } from "./models/turn-trace.js";
import type { ConversationKey, MessageKey, TraceKey } from "./paging/cursor.js";
import type { PageRequest } from "./paging/page-request.js";
import { redactSecrets } from "./redact.js";

/** A message with the store-assigned receipt order that breaks timestamp ties. */
export interface SequencedMessage {
  message: Message;
  sequence: number;
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
 * each hook), `ConnectionError` for a lost backend, `CorruptDataError` for stored data that fails
 * the model (core's `canonical*` checks and schemas tell), and keep every write atomic as seen
 * through the API. The conformance suite (`@message-store/conformance`) checks it end to end.
 */
export abstract class MessageStoreHooks {
  /** Short adapter name, used as the error prefix: `[message-store] [name] …`. */
  abstract readonly adapterName: string;
  /** Optional capabilities; override to declare `semanticSearch`. */
  readonly capabilities: StoreCapabilities = { semanticSearch: false };

  /**
   * Upserts by id, replacing every field but the store's own activity data (the newest message
   * timestamp ever stored in it). Resolves to the conversation as a read returns it, with
   * `lastActivityAt = max(updatedAt, newest message timestamp ever stored)`.
   */
  protected abstract _storeConversation(conversation: ConversationRecord): Promise<Conversation>;

  /** The conversation, or `null`. */
  protected abstract _getConversation(id: string): Promise<Conversation | null>;

  /**
   * The user's conversations after `page.after` in `(lastActivityAt desc, id asc)` order, at
   * most `page.take`, read atomically (one consistent snapshot).
   */
  protected abstract _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]>;

  /**
   * Conversations (of `userId` when not null) with id after `page.after`, by id ascending in
   * code-point order (`compareIds`), at most `page.take`.
   */
  protected abstract _listConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]>;

  /**
   * Deletes the conversation with its messages and their traces, all or nothing: a concurrent
   * reader sees all of it or none of it, and nothing is left behind. `false` when absent.
   */
  protected abstract _deleteConversation(id: string): Promise<boolean>;

  /**
   * Upserts a batch (ids unique, at least one) all or nothing, and resolves to it in input order.
   * Every message's conversation must exist and an existing message must not change conversation
   * (`IntegrityError`, nothing stored). A new message gets the next receipt sequence, in array
   * order; an upsert keeps its sequence. Conversation activity (the newest timestamp ever stored)
   * only moves forward.
   */
  protected abstract _storeMessages(messages: Message[]): Promise<Message[]>;

  /** The message, or `null`. */
  protected abstract _getMessage(id: string): Promise<Message | null>;

  /** Sets `isFlagged`; resolves to the updated message, or `null` when there is none (core throws `NotFoundError`). */
  protected abstract _flagMessage(id: string, flagged: boolean): Promise<Message | null>;

  /** The conversation's messages after `page.after` in `(timestamp, sequence)` order, at most `page.take`. */
  protected abstract _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]>;

  /** The newest `n` (≥ 1) non-flagged messages by `(timestamp, sequence)`, returned oldest first. */
  protected abstract _getImmediateContext(conversationId: string, n: number): Promise<Message[]>;

  /**
   * Upserts by id. The message must exist in `conversationId` and may have no trace with another
   * id (`IntegrityError`, nothing stored). Resolves to the trace as stored.
   */
  protected abstract _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace>;

  /** The trace of that message, or `null`. */
  protected abstract _getTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null>;

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
   * Deletes every conversation of the user with their messages and traces, all or nothing, and
   * resolves to the exact counts removed.
   */
  protected abstract _deleteUserData(userId: string): Promise<DeletedCounts>;

  /**
   * Only called when `capabilities.semanticSearch`: at least the top `query.limit` non-flagged
   * messages with an embedding of the query's length, under its filters, with their cosine
   * similarity (`cosineSimilarity`). Core rounds, re-sorts and cuts.
   */
  protected _searchMessages(_query: SearchQuery): Promise<SearchHit[]> {
    return Promise.reject(new UnsupportedOperationError("semantic search is not implemented"));
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
