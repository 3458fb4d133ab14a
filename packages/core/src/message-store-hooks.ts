import { NotFoundError, UnsupportedOperationError } from "./errors.js";
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

/** A message with the store-assigned receipt order that breaks timestamp ties. */
export interface SequencedMessage {
  message: Message;
  sequence: number;
}

/**
 * What an adapter implements: the protected hooks behind `MessageStore`'s public methods.
 *
 * Core calls a hook only with validated records (defaults filled) and plain-string ids, only
 * while the store is open, and turns the rows list hooks return into pages and cursors. Hooks
 * throw core's errors with `{ adapter: this.adapterName }`: `IntegrityError` for the contract's
 * integrity rules, `ConnectionError` for a lost backend, `CorruptDataError` for stored data that
 * fails the model, `StorageError` for other I/O failures. The conformance suite
 * (`@message-store/conformance`) checks an implementation end to end.
 */
export abstract class MessageStoreHooks {
  /** Short adapter name, used as the error prefix: `[message-store] [name] …`. */
  abstract readonly adapterName: string;
  /** Optional capabilities; override to declare `semanticSearch`. */
  readonly capabilities: StoreCapabilities = { semanticSearch: false };

  /** Upsert; resolve to the stored conversation with `lastActivityAt`. */
  protected abstract putConversation(conversation: ConversationRecord): Promise<Conversation>;
  protected abstract readConversation(id: string): Promise<Conversation | null>;
  /** Rows after `page.after` in `(lastActivityAt desc, id asc)` order, at most `page.take`. */
  protected abstract listConversationsByUser(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]>;
  /** Conversations (of `userId` when not null) with id after `page.after`, by id ascending (code-point order), at most `page.take`. */
  protected abstract listAllConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]>;
  /** Cascade delete; `false` when absent. */
  protected abstract removeConversation(id: string): Promise<boolean>;
  /** Atomic batch upsert with the integrity rules; resolve in input order. Ids are unique. */
  protected abstract putMessages(messages: Message[]): Promise<Message[]>;
  protected abstract readMessage(id: string): Promise<Message | null>;
  /** Resolve to the updated message, or `null` when there is none (core throws `NotFoundError`). */
  protected abstract setMessageFlag(id: string, flagged: boolean): Promise<Message | null>;
  /** Rows after `page.after` in `(timestamp, sequence)` order, at most `page.take`. */
  protected abstract listMessages(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]>;
  /** The newest `n` (≥ 1) non-flagged messages, returned oldest first. */
  protected abstract readImmediateContext(conversationId: string, n: number): Promise<Message[]>;
  protected abstract putTurnTrace(trace: TurnTrace): Promise<TurnTrace>;
  protected abstract readTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null>;
  /** Matching rows after `page.after` in `(timestamp desc, id desc)` order, at most `page.take`. */
  protected abstract listTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]>;
  /** Use `summarizeTraces` or `finalizeUsage` from core so numbers match other adapters. */
  protected abstract aggregateUsage(query: UsageQuery): Promise<UsageBucket[]>;
  protected abstract removeUserData(userId: string): Promise<DeletedCounts>;
  /** Only called when `capabilities.semanticSearch`; return at least the top `query.limit` hits. */
  protected searchByEmbedding(_query: SearchQuery): Promise<SearchHit[]> {
    return Promise.reject(
      new UnsupportedOperationError("semantic search is not implemented", {
        adapter: this.adapterName,
      }),
    );
  }
  /** Release resources. Called once, after calls in flight settled. */
  protected abstract closeStore(): Promise<void>;

  /** A `NotFoundError` with this adapter's prefix. */
  protected notFound(message: string): NotFoundError {
    return new NotFoundError(message, { adapter: this.adapterName });
  }
}
