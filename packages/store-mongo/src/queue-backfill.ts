import type { AnyBulkWriteOperation, Db } from "mongodb";
import type { MessageDoc } from "./documents.js";
import { idKey } from "./id-key.js";

/** The queue's first index: a store without it was written before the embedding queue existed. */
export const PENDING_INDEX = "messages_pending";

const BATCH = 1_000;

/**
 * Whether `db` holds messages written before the embedding queue existed: its messages
 * collection exists but lacks the queue's index. Such messages carry no `pendingKey`, so the
 * queue would never list them.
 */
export async function predatesEmbeddingQueue(db: Db): Promise<boolean> {
  try {
    const indexes = await db.collection("messages").listIndexes().toArray();
    return indexes.length > 0 && !indexes.some((i) => i.name === PENDING_INDEX);
  } catch (error) {
    // NamespaceNotFound: a new store, nothing to upgrade.
    if ((error as { code?: unknown }).code === 26) return false;
    throw error;
  }
}

/**
 * Gives every message without an embedding and without `pendingKey` its `pendingKey`, in batches,
 * and resolves to how many it queued. Runs before the queue's indexes are created, so a crash
 * part-way leaves the store still "predating the queue" and the next open finishes the job; each
 * update re-checks its filter, so a message written meanwhile (which sets `pendingKey` itself, or
 * an embedding) is left as its writer left it.
 */
export async function backfillEmbeddingQueue(db: Db): Promise<number> {
  const messages = db.collection<MessageDoc>("messages");
  const unqueued = { embedding: null, pendingKey: { $exists: false } };
  const cursor = messages.find(unqueued, { projection: { _id: 1 }, batchSize: BATCH });
  let queued = 0;
  let batch: AnyBulkWriteOperation<MessageDoc>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const result = await messages.bulkWrite(batch, { ordered: false });
    queued += result.modifiedCount;
    batch = [];
  };
  for await (const doc of cursor) {
    batch.push({
      updateOne: {
        filter: { _id: doc._id, ...unqueued },
        update: { $set: { pendingKey: idKey(doc._id) } },
      },
    });
    if (batch.length === BATCH) await flush();
  }
  await flush();
  return queued;
}
