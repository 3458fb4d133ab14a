import type { Message, MessageInput } from "../../models/message.js";
import type {
  ContextOptions,
  MessageListOptions,
  Page,
  ReadOptions,
} from "../../models/queries.js";
import type { MessageKey } from "../../paging/cursor.js";
import type { PageRequest } from "../../paging/page-request.js";
import type { FamilySpecs } from "./operation-spec.js";
import type { ByIdRequest, DriverRequest, ReadByIdRequest, SequencedMessage } from "./requests.js";

/** Messages: upserts, reads, the flag, deletion, the transcript and the context window. What the caller sees. */
export interface MessagesApi {
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
   * Deletes one message and its trace for good, soft-deleted or not. Resolves `false` when there
   * is no such message. The conversation's `lastActivityAt` is unchanged.
   */
  deleteMessage(id: string): Promise<boolean>;

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
}

/** Messages: upserts, reads, the flag, deletion, the transcript and the context window. What a driver implements. */
export interface MessagesDriver {
  /**
   * Upserts a batch (ids unique, at least one) all or nothing, and resolves to it in input order
   * as stored (`tenantId` filled, a stale embedding cleared). Every message's conversation must
   * exist, the ownership and soft-delete rules hold, and an existing message must not change
   * conversation (nothing stored otherwise). A new message gets the next receipt sequence, in
   * array order; an upsert keeps its sequence. Conversation activity (the newest timestamp ever
   * stored) only moves forward, also when an upsert moves a message forward.
   */
  storeMessages(request: DriverRequest & { messages: readonly Message[] }): Promise<Message[]>;

  /** The message, or `null` (also when soft-deleted and not `includeDeleted`). */
  getMessage(request: ReadByIdRequest): Promise<Message | null>;

  /**
   * Sets `isFlagged` on a live message; resolves to the updated message, or `null` when there is
   * none or it is soft-deleted (core throws `NotFoundError`).
   */
  flagMessage(request: ByIdRequest & { flagged: boolean }): Promise<Message | null>;

  /**
   * Deletes the message and its trace (soft-deleted or not), atomically; the conversation's
   * activity is unchanged. `false` when absent.
   */
  deleteMessage(request: ByIdRequest): Promise<boolean>;

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
}

/** The driver operations of this family, as the operation table lists them. */
export const MESSAGES = {
  storeMessages: { write: true, owned: true },
  getMessage: {},
  flagMessage: { write: true },
  deleteMessage: { write: true },
  getMessagesByConversationId: {},
  getImmediateContext: {},
} as const satisfies FamilySpecs<MessagesDriver>;
