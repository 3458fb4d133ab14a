import type { EmbeddingUpdate, Message, PendingEmbeddingsFilter, Scope } from "@message-store/core";
import type { PageRequest } from "@message-store/core/adapter";
import type { Filter } from "mongodb";
import type { MongoContext } from "./collections.js";
import { type MessageDoc, toMessage } from "./documents.js";
import { idKey } from "./id-key.js";
import { inScope, pageOptions } from "./queries.js";

/*
 * The embedding queue. A message without an embedding carries `pendingKey` (its `idKey`, set by
 * every message write), and only such messages are in the queue's partial indexes, so listing
 * the queue reads the queue and not the collection; the other conditions (live, role, flag,
 * owner) are checked on those documents.
 */

/** What the queue is asked besides the owners, which are its scope. */
export type PendingFilter = Omit<PendingEmbeddingsFilter, "userId" | "tenantId">;

/** Pending messages in `scope` matching `filter`, by id (code-point order) after `page.after`. */
export async function listPendingEmbeddings(
  ctx: MongoContext,
  scope: Scope,
  filter: PendingFilter,
  page: PageRequest<string>,
): Promise<Message[]> {
  const where: Filter<MessageDoc> = {
    pendingKey: page.after === null ? { $exists: true } : { $gt: idKey(page.after) },
    deletedAt: null,
    embedding: null,
    role: { $in: filter.roles },
  };
  if (!filter.includeFlagged) where.isFlagged = false;
  Object.assign(where, inScope(scope));
  const docs = await ctx.messages.find(where, pageOptions({ pendingKey: 1 }, page.take)).toArray();
  return docs.map(toMessage);
}

/**
 * Sets each embedding whose message is in `scope`, live and still has the text it was computed
 * from: one unordered bulk write of conditional updates (each atomic on its document, as the
 * contract asks).
 */
export async function setEmbeddings(
  ctx: MongoContext,
  scope: Scope,
  updates: readonly EmbeddingUpdate[],
): Promise<number> {
  if (updates.length === 0) return 0;
  const owners = inScope(scope);
  const result = await ctx.messages.bulkWrite(
    updates.map((u) => ({
      updateOne: {
        filter: { _id: u.id, ...owners, deletedAt: null, originalContent: u.originalContent },
        update: { $set: { embedding: u.embedding }, $unset: { pendingKey: "" as const } },
      },
    })),
    { ordered: false },
  );
  return result.matchedCount;
}
