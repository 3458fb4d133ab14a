import {
  type CheckpointRecord,
  type CheckpointWritesRecord,
  CorruptDataError,
  type JsonObject,
  type Message,
  type SerializedValue,
  type StoredCheckpoint,
  type TurnTrace,
} from "@message-store/core";
import { decodeText, encodeText, toJsonParam } from "./nul-codec.js";
import { batchParam } from "./row-mapping.js";

/*
 * Checkpoint rows ↔ the model. Text arrives NUL-escaped (`nul-codec.ts`) and is unescaped here;
 * `jsonb` arrives decoded; `bytea` as Buffers, handed out as plain `Uint8Array` views.
 */

type Row = Record<string, unknown>;

const bytes = (value: unknown): Uint8Array => {
  const b = value as Uint8Array;
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};
const texts = (value: unknown): string[] => ((value ?? []) as string[]).map(decodeText);
const list = <T>(value: unknown): T[] => (value ?? []) as T[];

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A checkpoint row (see `checkpoint-queries.ts`) as the model; a malformed one is corrupt data. */
export function toStoredCheckpoint(row: Row, table: string): StoredCheckpoint {
  const id = decodeText(row.id as string);
  if (
    !(row.checkpoint instanceof Uint8Array) ||
    !isObject(row.channel_versions) ||
    !isObject(row.metadata)
  ) {
    const location = `${table} id=${JSON.stringify(id)}`;
    throw new CorruptDataError(`stored row ${location} is invalid`, location);
  }
  const valueTypes = texts(row.value_types);
  const valueData = list<unknown>(row.value_data);
  const versions = texts(row.versions);
  const writeTypes = texts(row.write_types);
  const writeData = list<unknown>(row.write_data);
  const taskPaths = texts(row.task_paths);
  const writeChannels = texts(row.write_channels);
  const idxs = list<number>(row.idxs);
  return {
    conversationId: decodeText(row.conversation_id as string),
    namespace: decodeText(row.namespace as string),
    id,
    parentId: row.parent_id === null ? null : decodeText(row.parent_id as string),
    checkpoint: { type: decodeText(row.type as string), data: bytes(row.checkpoint) },
    channelVersions: row.channel_versions as Record<string, string>,
    metadata: row.metadata,
    values: texts(row.channels).map((channel, i) => ({
      channel,
      version: versions[i]!,
      value: { type: valueTypes[i]!, data: bytes(valueData[i]) },
    })),
    writes: texts(row.task_ids).map((taskId, i) => ({
      taskId,
      taskPath: taskPaths[i]!,
      idx: Number(idxs[i]),
      channel: writeChannels[i]!,
      value: { type: writeTypes[i]!, data: bytes(writeData[i]) },
    })),
  };
}

const buffer = (v: SerializedValue) =>
  Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength);

/** Values as the functions take them: their lengths, and their bytes concatenated (one `bytea`). */
function packed(values: readonly SerializedValue[]): [number[], Buffer] {
  return [values.map((v) => v.data.byteLength), Buffer.concat(values.map(buffer))];
}

/** The parameters of `ms_put_checkpoint`. */
export function putCheckpointParams(
  conversation: unknown,
  checkpoint: CheckpointRecord,
  messages: readonly Message[],
  traces: readonly TurnTrace[],
  now: number,
): unknown[] {
  const fields = {
    namespace: checkpoint.namespace,
    id: checkpoint.id,
    parentId: checkpoint.parentId,
    type: checkpoint.checkpoint.type,
    channelVersions: checkpoint.channelVersions,
    metadata: checkpoint.metadata,
  };
  const values = checkpoint.values;
  return [
    toJsonParam(conversation),
    toJsonParam(fields),
    buffer(checkpoint.checkpoint),
    values.map((v) => encodeText(v.channel)),
    values.map((v) => encodeText(v.version)),
    values.map((v) => encodeText(v.value.type)),
    ...packed(values.map((v) => v.value)),
    messages.length === 0 ? null : batchParam(messages),
    now,
    traces.length === 0 ? null : batchParam(traces),
  ];
}

/** The parameters of `ms_put_checkpoint_writes`. */
export function putWritesParams(conversation: unknown, w: CheckpointWritesRecord): unknown[] {
  return [
    toJsonParam(conversation),
    encodeText(w.namespace),
    encodeText(w.checkpointId),
    encodeText(w.taskId),
    encodeText(w.taskPath),
    w.writes.map((x) => x.idx),
    w.writes.map((x) => encodeText(x.channel)),
    w.writes.map((x) => encodeText(x.value.type)),
    ...packed(w.writes.map((x) => x.value)),
  ];
}
