import { compareWrites } from "../checkpoint/compare-writes.js";
import type {
  ChannelValue,
  CheckpointRecord,
  CheckpointWrite,
  CheckpointWritesRecord,
  SerializedValue,
  StoredCheckpoint,
} from "../models/checkpoint.js";
import { compareIds } from "../paging/ordering.js";
import { cloneJson } from "./clone.js";
import { insertSorted } from "./sorted-array.js";

/** A checkpoint as one namespace keeps it: the record without its values (kept per version). */
export type CheckpointEntry = Omit<CheckpointRecord, "values">;

/** The checkpoints of one namespace of one thread, with their channel values and pending writes. */
export interface NamespaceCheckpoints {
  readonly checkpoints: Map<string, CheckpointEntry>;
  /** The checkpoint ids in code-point order (`compareIds`); the last is the latest. */
  readonly ids: string[];
  /** Channel values by `[channel, version]` (as {@link valueKey}). */
  readonly values: Map<string, ChannelValue>;
  /** Pending writes by checkpoint id, then by `[taskId, idx]` (as {@link writeKey}). */
  readonly writes: Map<string, Map<string, CheckpointWrite>>;
}

/** A thread's namespaces by name. */
export type ThreadCheckpoints = Map<string, NamespaceCheckpoints>;

const valueKey = (channel: string, version: string) => `${channel}\u0000${version}`;
const writeKey = (taskId: string, idx: number) => `${taskId}\u0000${idx}`;

export const copyValue = (v: SerializedValue): SerializedValue => ({
  type: v.type,
  data: new Uint8Array(v.data),
});

function namespaceOf(thread: ThreadCheckpoints, namespace: string): NamespaceCheckpoints {
  let ns = thread.get(namespace);
  if (!ns) {
    ns = { checkpoints: new Map(), ids: [], values: new Map(), writes: new Map() };
    thread.set(namespace, ns);
  }
  return ns;
}

/** Stores the checkpoint's new values (a stored version is kept) and upserts the checkpoint. */
export function storeCheckpoint(thread: ThreadCheckpoints, record: CheckpointRecord): void {
  const { values, ...entry } = record;
  const ns = namespaceOf(thread, record.namespace);
  for (const v of values) {
    const key = valueKey(v.channel, v.version);
    if (!ns.values.has(key)) ns.values.set(key, v);
  }
  if (!ns.checkpoints.has(entry.id)) insertSorted(ns.ids, entry.id, compareIds);
  ns.checkpoints.set(entry.id, entry);
}

/** Stores a task's writes: a negative `idx` replaces, another one keeps what is stored. */
export function storeCheckpointWrites(
  thread: ThreadCheckpoints,
  record: CheckpointWritesRecord,
): void {
  const ns = namespaceOf(thread, record.namespace);
  let byTask = ns.writes.get(record.checkpointId);
  if (!byTask) {
    byTask = new Map();
    ns.writes.set(record.checkpointId, byTask);
  }
  for (const w of record.writes) {
    const key = writeKey(record.taskId, w.idx);
    if (w.idx >= 0 && byTask.has(key)) continue;
    byTask.set(key, { taskId: record.taskId, taskPath: record.taskPath, ...w });
  }
}

/** The latest checkpoint of a namespace (`id: null`) or the one with that id, as a copy. */
export function readCheckpoint(
  conversationId: string,
  namespace: string,
  ns: NamespaceCheckpoints | undefined,
  id: string | null,
): StoredCheckpoint | null {
  const entry = ns?.checkpoints.get(id ?? ns.ids[ns.ids.length - 1] ?? "");
  return ns && entry ? storedCheckpoint(conversationId, namespace, ns, entry) : null;
}

/** A checkpoint with its values and writes, as the API returns it (a copy). */
export function storedCheckpoint(
  conversationId: string,
  namespace: string,
  ns: NamespaceCheckpoints,
  entry: CheckpointEntry,
): StoredCheckpoint {
  const values: ChannelValue[] = [];
  const channels = Object.keys(entry.channelVersions).sort(compareIds);
  for (const channel of channels) {
    const v = ns.values.get(valueKey(channel, entry.channelVersions[channel]!));
    if (v) values.push({ channel, version: v.version, value: copyValue(v.value) });
  }
  const writes = [...(ns.writes.get(entry.id)?.values() ?? [])]
    .sort(compareWrites)
    .map((w) => ({ ...w, value: copyValue(w.value) }));
  return {
    conversationId,
    namespace,
    id: entry.id,
    parentId: entry.parentId,
    checkpoint: copyValue(entry.checkpoint),
    channelVersions: { ...entry.channelVersions },
    metadata: cloneJson(entry.metadata),
    values,
    writes,
  };
}

/** Adds a channel value read from a file (a version already held is kept). */
export function putChannelValue(
  thread: ThreadCheckpoints,
  namespace: string,
  value: ChannelValue,
): void {
  const ns = namespaceOf(thread, namespace);
  const key = valueKey(value.channel, value.version);
  if (!ns.values.has(key)) ns.values.set(key, value);
}
