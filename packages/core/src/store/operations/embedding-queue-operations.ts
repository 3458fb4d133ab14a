import { z } from "zod";
import { MAX_BATCH } from "../../canonical/input-fast-paths.js";
import { PendingEmbeddingsOptionsSchema } from "../../models/queries.js";
import { EmbeddingUpdateSchema } from "../../models/session.js";
import { cursors } from "../../paging/cursor.js";
import { rejectDuplicateIds } from "../../validation.js";
import type { EmbeddingQueueApi } from "../contract/embedding-queue.js";
import type { Implementation } from "../store-context.js";

const EmbeddingUpdatesSchema = z.array(EmbeddingUpdateSchema).max(MAX_BATCH);

/** How the store carries out each method of the family (see `EmbeddingQueueApi`). */
export const EMBEDDING_QUEUE_METHODS = {
  async listPendingEmbeddings(ctx, options = {}) {
    const { limit, cursor, userId, tenantId, ...filter } = ctx.parse(
      PendingEmbeddingsOptionsSchema,
      options,
      "pending embeddings options",
    );
    const list = { limit, cursor, userId, tenantId };
    return ctx.list("listPendingEmbeddings", list, cursors.messageId, (m) => m.id, { filter });
  },

  async setEmbeddings(ctx, updates) {
    const parsed = ctx.parse(EmbeddingUpdatesSchema, updates, "embedding updates");
    rejectDuplicateIds(parsed, "embedding updates", ctx.name);
    ctx.require("embeddingQueue");
    return parsed.length === 0 ? 0 : ctx.call("setEmbeddings", { updates: parsed });
  },
} satisfies Implementation<EmbeddingQueueApi>;
