import type { DeletedCounts, PurgeOptions } from "../../models/queries.js";
import type { FamilySpecs } from "./operation-spec.js";
import type { ByIdRequest, DriverRequest } from "./requests.js";

/** Soft delete, restore and purge (capability `softDelete`). What the caller sees. */
export interface SoftDeleteApi {
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
   * Hard-deletes everything soft-deleted strictly before `before`: conversations (with all their
   * records), messages (with their traces) and traces. Resolves to the exact counts removed.
   */
  purgeDeleted(options: PurgeOptions): Promise<DeletedCounts>;
}

/** Soft delete, restore and purge (capability `softDelete`). What a driver implements. */
export interface SoftDeleteDriver {
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
   * `softDelete`. Hard-deletes, in one atomic write, every record in the scope soft-deleted
   * strictly before `before` (a record deleted at `before` stays): such conversations with
   * everything in them, such messages with their traces, such traces. Resolves to exact counts.
   */
  purgeDeleted?(request: DriverRequest & { before: number }): Promise<DeletedCounts>;
}

/** The driver operations of this family, as the operation table lists them. */
export const SOFT_DELETE = {
  softDeleteConversation: { capability: "softDelete", write: true },
  restoreConversation: { capability: "softDelete", write: true },
  softDeleteMessage: { capability: "softDelete", write: true },
  restoreMessage: { capability: "softDelete", write: true },
  purgeDeleted: { capability: "softDelete", write: true },
} as const satisfies FamilySpecs<SoftDeleteDriver>;
