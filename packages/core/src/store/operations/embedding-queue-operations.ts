import { z } from "zod";
import { MAX_BATCH } from "../../canonical/input-fast-paths.js";
import { PendingEmbeddingsOptionsSchema } from "../../models/queries.js";
import { EmbeddingUpdateSchema } from "../../models/session.js";
import { cursors } from "../../paging/cursor.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import { rejectDuplicateIds } from "../../validation.js";
import type { EmbeddingQueueApi } from "../contract/embedding-queue.js";
import type { Implementation } from "../store-context.js";
import { EMPTY, identity, take } from "./page-results.js";

const EmbeddingUpdatesSchema = z.array(EmbeddingUpdateSchema).max(MAX_BATCH);

/** How the store carries out each method of the family (see `EmbeddingQueueApi`). */
export const EMBEDDING_QUEUE_METHODS = {
  async listPendingEmbeddings(ctx, options = {}) {
    const { limit, cursor, userId, tenantId, ...filter } = ctx.parse(
      PendingEmbeddingsOptionsSchema,
      options,
      "pending embeddings options",
    );
    ctx.require("embeddingQueue");
    const scope = ctx.filter({ userId, tenantId });
    const after = decodeCursor(cursor, cursors.messageId.decode, ctx.name);
    if (!scope) return EMPTY;
    const page = { after, take: take(limit) };
    const rows = await ctx.call("listPendingEmbeddings", { scope, filter, page });
    return toPage(rows, limit ?? null, identity, (m) => cursors.messageId.encode(m.id));
  },

  async setEmbeddings(ctx, updates) {
    const parsed = ctx.parse(EmbeddingUpdatesSchema, updates, "embedding updates");
    rejectDuplicateIds(parsed, "embedding updates", ctx.name);
    ctx.require("embeddingQueue");
    return parsed.length === 0 ? 0 : ctx.call("setEmbeddings", { updates: parsed });
  },
} satisfies Implementation<EmbeddingQueueApi>;
