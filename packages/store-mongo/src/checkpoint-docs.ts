import {
  type CheckpointRecord,
  type CheckpointWritesRecord,
  CorruptDataError,
  type Json,
  type JsonObject,
  type SerializedValue,
  type StoredCheckpoint,
} from "@message-store/core";
import { compareIds, compareWrites } from "@message-store/core/adapter";
import { Binary } from "mongodb";
import { idKey } from "./id-key.js";
import { decodeJson, encodeJson } from "./key-codec.js";

/*
 * The documents of the `checkpoints` capability. `_id`s are the JSON text of the record's key
 * (`[conversationId, incarnation, namespace, …]`, one string per record). Every document carries
 * its thread's owners (never changing, so scoped filters need no join) and the incarnation of the
 * conversation it was written for (see `ConversationDoc.incarnation`): a document left by a put
 * that raced the conversation's delete shares no key with a later conversation of that id. A
 * checkpoint also carries the `idKey`s of its sort key (code point order on any server, see
 * `idKey`) and the `_id`s of the channel values its versions name (`valueIds`), which a read joins
 * with `$lookup`; a write carries its checkpoint's `_id`.
 */

export interface CheckpointDoc {
  _id: string;
  conversationId: string;
  namespace: string;
  id: string;
  idKey: string;
  conversationKey: string;
  namespaceKey: string;
  userId: string;
  tenantId: string | null;
  incarnation: string;
  parentId: string | null;
  type: string;
  checkpoint: Binary;
  channelVersions: Record<string, unknown>;
  metadata: Record<string, unknown>;
  valueIds: string[];
}

export interface CheckpointValueDoc {
  _id: string;
  conversationId: string;
  userId: string;
  tenantId: string | null;
  incarnation: string;
  namespace: string;
  channel: string;
  version: string;
  type: string;
  value: Binary;
}

export interface CheckpointWriteDoc {
  _id: string;
  /** The `_id` of the checkpoint the write was made against. */
  checkpoint: string;
  conversationId: string;
  userId: string;
  tenantId: string | null;
  incarnation: string;
  namespace: string;
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  type: string;
  value: Binary;
}

const key = (...parts: (string | number)[]) => JSON.stringify(parts);

const checkpointKey = (owner: ThreadOwner, conversationId: string, namespace: string, id: string) =>
  key(conversationId, owner.incarnation, namespace, id);

const valueKey = (owner: ThreadOwner, c: CheckpointRecord, channel: string, version: string) =>
  key(c.conversationId, owner.incarnation, c.namespace, channel, version);

const binary = (v: SerializedValue) => new Binary(v.data);

/** A checkpoint document; `owner` is its conversation's. */
export function checkpointDoc(c: CheckpointRecord, owner: ThreadOwner): CheckpointDoc {
  return {
    _id: checkpointKey(owner, c.conversationId, c.namespace, c.id),
    conversationId: c.conversationId,
    namespace: c.namespace,
    id: c.id,
    idKey: idKey(c.id),
    conversationKey: idKey(c.conversationId),
    namespaceKey: idKey(c.namespace),
    ...owner,
    parentId: c.parentId,
    type: c.checkpoint.type,
    checkpoint: binary(c.checkpoint),
    channelVersions: encodeJson(c.channelVersions, 2) as Record<string, unknown>,
    metadata: encodeJson(c.metadata, 2) as Record<string, unknown>,
    valueIds: Object.entries(c.channelVersions).map(([channel, version]) =>
      valueKey(owner, c, channel, version),
    ),
  };
}

/** The owners and the conversation incarnation of a thread, as its documents carry them. */
export type ThreadOwner = { userId: string; tenantId: string | null; incarnation: string };

/** The value documents of a checkpoint's new channel values. */
export function valueDocs(c: CheckpointRecord, owner: ThreadOwner): CheckpointValueDoc[] {
  return c.values.map((v) => ({
    _id: valueKey(owner, c, v.channel, v.version),
    conversationId: c.conversationId,
    ...owner,
    namespace: c.namespace,
    channel: v.channel,
    version: v.version,
    type: v.value.type,
    value: binary(v.value),
  }));
}

/** The write documents of one task's writes. */
export function writeDocs(w: CheckpointWritesRecord, owner: ThreadOwner): CheckpointWriteDoc[] {
  const checkpoint = checkpointKey(owner, w.conversationId, w.namespace, w.checkpointId);
  return w.writes.map((x) => ({
    _id: key(w.conversationId, owner.incarnation, w.namespace, w.checkpointId, w.taskId, x.idx),
    checkpoint,
    conversationId: w.conversationId,
    ...owner,
    namespace: w.namespace,
    taskId: w.taskId,
    taskPath: w.taskPath,
    idx: x.idx,
    channel: x.channel,
    type: x.value.type,
    value: binary(x.value),
  }));
}

const bytes = (b: Binary): Uint8Array => {
  const buf = b.buffer;
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
};

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A checkpoint document with its joined `values` and `writes` as the model; a document of
 * another shape is corrupt data naming it.
 */
export function toStoredCheckpoint(
  doc: CheckpointDoc & { values: CheckpointValueDoc[]; writes: CheckpointWriteDoc[] },
): StoredCheckpoint {
  const channelVersions = decodeJson(doc.channelVersions) as Record<string, string>;
  const metadata = decodeJson(doc.metadata) as Json;
  if (!(doc.checkpoint instanceof Binary) || !isObject(channelVersions) || !isObject(metadata)) {
    const location = `checkpoints/${doc._id}`;
    throw new CorruptDataError(`stored document ${location} is invalid`, location);
  }
  const values = doc.values
    .filter((v) => channelVersions[v.channel] === v.version)
    .sort((a, b) => compareIds(a.channel, b.channel))
    .map((v) => ({
      channel: v.channel,
      version: v.version,
      value: { type: v.type, data: bytes(v.value) },
    }));
  const writes = doc.writes
    .map((w) => ({
      taskId: w.taskId,
      taskPath: w.taskPath,
      idx: w.idx,
      channel: w.channel,
      value: { type: w.type, data: bytes(w.value) },
    }))
    .sort(compareWrites);
  return {
    conversationId: doc.conversationId,
    namespace: doc.namespace,
    id: doc.id,
    parentId: doc.parentId,
    checkpoint: { type: doc.type, data: bytes(doc.checkpoint) },
    channelVersions,
    metadata,
    values,
    writes,
  };
}
