import type { StoreCapabilities } from "./capabilities.js";
import type { CheckpointsApi } from "./contract/checkpoints.js";
import type { ConversationsApi } from "./contract/conversations.js";
import type { EmbeddingQueueApi } from "./contract/embedding-queue.js";
import type { MessagesApi } from "./contract/messages.js";
import type { SearchApi } from "./contract/search.js";
import type { SessionsApi } from "./contract/sessions.js";
import type { SoftDeleteApi } from "./contract/soft-delete.js";
import type { TracesApi } from "./contract/traces.js";

/**
 * The message store contract: what every adapter, and every scoped view, offers. Each family of
 * methods is documented where it is declared, under `store/contract/`.
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
export interface MessageStoreApi
  extends ConversationsApi,
    SoftDeleteApi,
    MessagesApi,
    SessionsApi,
    TracesApi,
    SearchApi,
    EmbeddingQueueApi,
    CheckpointsApi {
  readonly capabilities: StoreCapabilities;

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
