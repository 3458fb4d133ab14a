import type { Message } from "../../models/message.js";
import type {
  Page,
  PendingEmbeddingsFilter,
  PendingEmbeddingsOptions,
} from "../../models/queries.js";
import type { EmbeddingUpdate, EmbeddingUpdateInput } from "../../models/session.js";
import type { PageRequest } from "../../paging/page-request.js";
import type { FamilySpecs } from "./operation-spec.js";
import type { DriverRequest } from "./requests.js";

/** The embedding queue (capability `embeddingQueue`). What the caller sees. */
export interface EmbeddingQueueApi {
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
}

/** The embedding queue (capability `embeddingQueue`). What a driver implements. */
export interface EmbeddingQueueDriver {
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
}

/** The driver operations of this family, as the operation table lists them. */
export const EMBEDDING_QUEUE = {
  listPendingEmbeddings: { capability: "embeddingQueue" },
  setEmbeddings: { capability: "embeddingQueue", write: true },
} as const satisfies FamilySpecs<EmbeddingQueueDriver>;
