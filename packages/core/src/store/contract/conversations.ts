import type {
  Conversation,
  ConversationInput,
  ConversationRecord,
} from "../../models/conversation.js";
import type {
  ConversationListOptions,
  DeletedCounts,
  DeleteUserDataOptions,
  ListConversationsOptions,
  Page,
  ReadOptions,
} from "../../models/queries.js";
import type { ConversationKey } from "../../paging/cursor.js";
import type { FamilySpecs } from "./operation-spec.js";
import type {
  ByIdRequest,
  ConversationPageRequest,
  DriverRequest,
  ReadByIdRequest,
} from "./requests.js";

/** Conversations: upserts, reads, lists, deletion and erasure. What the caller sees. */
export interface ConversationsApi {
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
   * Right to erasure: deletes every conversation of the user (of one tenant, with `tenantId`),
   * soft-deleted ones included, with their messages, traces and checkpoints, and resolves to the
   * counts removed. Zero counts for an unknown user.
   */
  deleteUserData(userId: string, options?: DeleteUserDataOptions): Promise<DeletedCounts>;
}

/** Conversations: upserts, reads, lists, deletion and erasure. What a driver implements. */
export interface ConversationsDriver {
  /**
   * Upserts by id, replacing every field but the store's own activity data (the newest message
   * timestamp ever stored in it). Resolves to it as a read returns it, with `lastActivityAt =
   * max(updatedAt, newest message timestamp ever stored)`. Refuses (nothing stored) when it
   * exists with another `userId` or `tenantId` (`ownerRefusal`) or another `deletedAt`.
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
   * Deletes every conversation in the scope (`scope.userId` is always set; soft-deleted ones
   * included) with their messages and traces, all or nothing, and resolves to the exact counts
   * removed.
   */
  deleteUserData(request: DriverRequest & { scope: { userId: string } }): Promise<DeletedCounts>;
}

/** The driver operations of this family, as the operation table lists them. */
export const CONVERSATIONS = {
  storeConversation: { write: true, owned: true },
  getConversation: {},
  getConversationsByUserId: {},
  listConversations: {},
  deleteConversation: { write: true },
  deleteUserData: { write: true },
} as const satisfies FamilySpecs<ConversationsDriver>;
