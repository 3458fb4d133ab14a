import type { Message } from "@message-store/core";
import type { AnyBulkWriteOperation, Filter } from "mongodb";
import { type MessageDoc, messageFields } from "./documents.js";
import { idKey } from "./id-key.js";

/** One message write of a bulk. */
export type MessageWrite = AnyBulkWriteOperation<MessageDoc>;
/** An upsert of a bulk, with its filter and update at hand for a lone `updateOne`. */
export type MessageUpsert = MessageWrite & {
  updateOne: { filter: Filter<MessageDoc>; update: object; upsert: true };
};

/** The insert of one new message: the document an {@link upsertMessage} creates, fields in its order. */
export function insertMessage(m: Message, sequence: number): MessageWrite {
  // `deletedAt` first, as the upsert's filter seeds it; the body's own keeps that position.
  const document: MessageDoc = Object.assign(
    { _id: m.id, conversationId: m.conversationId, deletedAt: m.deletedAt },
    messageFields(m),
    m.embedding === null ? { pendingKey: idKey(m.id) } : {},
    { sequence },
  );
  return { insertOne: { document } };
}

/**
 * The upsert of one message. A message without an embedding is pending embedding: it carries
 * `pendingKey` (its `idKey`), which the queue's partial indexes hold; one with an embedding has
 * none. The filter refuses (by missing, so the insert collides on `_id`) another conversation,
 * another `deletedAt` and an embedding passed back unchanged with a new text. An existing message
 * keeps its `sequence`; with `keepTimestamp` (a session write) its `timestamp` too, so a message
 * a concurrent writer stored first keeps its place.
 */
export function upsertMessage(m: Message, sequence: number, keepTimestamp = false): MessageUpsert {
  const filter: Filter<MessageDoc> = {
    _id: m.id,
    conversationId: m.conversationId,
    deletedAt: m.deletedAt,
  };
  if (m.embedding !== null) {
    filter.$or = [{ originalContent: m.originalContent }, { embedding: { $ne: m.embedding } }];
  }
  const body: Partial<MessageDoc> = messageFields(m);
  if (keepTimestamp) delete body.timestamp;
  const onInsert = keepTimestamp ? { timestamp: m.timestamp, sequence } : { sequence };
  const update =
    m.embedding === null
      ? { $set: { ...body, pendingKey: idKey(m.id) }, $setOnInsert: onInsert }
      : { $set: body, $unset: { pendingKey: "" as const }, $setOnInsert: onInsert };
  return { updateOne: { filter, update, upsert: true } };
}
