import type {
  CheckpointInput,
  CheckpointWritesInput,
  SerializedValue,
  StoredCheckpoint,
} from "@message-store/core";

/*
 * A checkpoint travels as `listCheckpoints` reads it (a `StoredCheckpoint`: the checkpoint, the
 * channel values it references, its pending writes) and is stored again with the operations
 * that wrote it (`putCheckpoint`, then `putCheckpointWrites` per task). A channel value is stored
 * once per thread, namespace, channel and version, so it travels once too: with the first
 * checkpoint of the walk that references it.
 */

/** The values of a walk already carried: `[namespace, channel, version]` as JSON. */
export type CarriedValues = Set<string>;

/**
 * `stored` without the channel values an earlier checkpoint of the same walk carried; the
 * values it keeps are added to `carried`. A thread's checkpoints walked in one order (newest
 * first, as `listCheckpoints` lists them) and put in that order store every value they reference.
 */
export function withoutCarriedValues(
  stored: StoredCheckpoint,
  carried: CarriedValues,
): StoredCheckpoint {
  const values = stored.values.filter((v) => {
    const key = JSON.stringify([stored.namespace, v.channel, v.version]);
    if (carried.has(key)) return false;
    carried.add(key);
    return true;
  });
  return { ...stored, values };
}

/** What stores a carried checkpoint again: one `putCheckpoint`, one `putCheckpointWrites` per task. */
export interface CheckpointPuts {
  checkpoint: CheckpointInput;
  writes: CheckpointWritesInput[];
}

/** The puts that store `stored` (its values and its pending writes, grouped by task). */
export function checkpointPuts(stored: StoredCheckpoint): CheckpointPuts {
  const { writes, ...checkpoint } = stored;
  const tasks = new Map<string, CheckpointWritesInput>();
  for (const { taskId, taskPath, ...write } of writes) {
    const key = JSON.stringify([taskPath, taskId]);
    let task = tasks.get(key);
    if (!task) {
      task = {
        conversationId: stored.conversationId,
        namespace: stored.namespace,
        checkpointId: stored.id,
        taskId,
        taskPath,
        writes: [],
      };
      tasks.set(key, task);
    }
    task.writes.push(write);
  }
  return { checkpoint, writes: [...tasks.values()] };
}

/** A serialized value in an export: the serializer's tag and the bytes as base64. */
function encodeValue(value: SerializedValue): { type: string; data: string } {
  return { type: value.type, data: Buffer.from(value.data).toString("base64") };
}

/** `stored` as the `data` of an export's `checkpoint` line (bytes as base64). */
export function checkpointLineData(stored: StoredCheckpoint): Record<string, unknown> {
  return {
    ...stored,
    checkpoint: encodeValue(stored.checkpoint),
    values: stored.values.map((v) => ({ ...v, value: encodeValue(v.value) })),
    writes: stored.writes.map((w) => ({ ...w, value: encodeValue(w.value) })),
  };
}

/** A `checkpoint` line's data that is not a checkpoint as an export writes it. */
export class CheckpointLineError extends Error {
  override name = "CheckpointLineError";
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeValue(value: unknown, where: string): unknown {
  if (typeof value !== "object" || value === null) return value;
  const { data } = value as { data?: unknown };
  if (typeof data !== "string") return value;
  if (!BASE64.test(data)) throw new CheckpointLineError(`${where}.data is not base64`);
  return { ...value, data: new Uint8Array(Buffer.from(data, "base64")) };
}

function listAt(data: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const list = data[key] ?? [];
  if (!Array.isArray(list) || !list.every((x) => typeof x === "object" && x !== null)) {
    throw new CheckpointLineError(`"${key}" must be an array of objects`);
  }
  return list as Record<string, unknown>[];
}

/**
 * The checkpoint a `checkpoint` line's data holds, bytes decoded; throws
 * {@link CheckpointLineError} when its lists or base64 are malformed. Its fields are checked
 * when it is stored (or by the import's validation pass), by the store's own models.
 */
export function checkpointFromLine(data: Record<string, unknown>): StoredCheckpoint {
  return {
    ...data,
    checkpoint: decodeValue(data.checkpoint, "checkpoint"),
    values: listAt(data, "values").map((v, i) => ({
      ...v,
      value: decodeValue(v.value, `values[${i}].value`),
    })),
    writes: listAt(data, "writes").map((w, i) => ({
      ...w,
      value: decodeValue(w.value, `writes[${i}].value`),
    })),
  } as StoredCheckpoint;
}

/**
 * The note a command prints when it carried soft-deleted conversations from a store that keeps
 * checkpoints: the store hides such a conversation's checkpoints from every read, so any it has
 * stay behind. `null` when there is nothing to say.
 */
export function hiddenCheckpointsNote(
  store: { capabilities: { checkpoints?: boolean } },
  softDeleted: number,
  verb: string,
): string | null {
  if (!store.capabilities.checkpoints || softDeleted === 0) return null;
  const what =
    softDeleted === 1 ? "1 soft-deleted conversation" : `${softDeleted} soft-deleted conversations`;
  return `note: ${what} ${verb} without checkpoints: the store hides a soft-deleted conversation's checkpoints (restore it first to carry them)`;
}
