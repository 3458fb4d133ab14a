import type {
  CheckpointInput,
  MessageStoreApi,
  SerializedValue,
  StoredCheckpoint,
} from "@message-store/core";
import { collect } from "./dump.js";

/** `text` as a serialized value of type `type` (UTF-8 bytes). */
export function value(text: string, type = "json"): SerializedValue {
  return { type, data: new TextEncoder().encode(text) };
}

/** A value's bytes as text, to compare values read back. */
export function text(v: SerializedValue | undefined): string | undefined {
  return v && `${v.type}:${new TextDecoder().decode(v.data)}`;
}

/** A checkpoint of `thread` with id `id`: the document is `doc:<id>`, no values unless given. */
export function checkpoint(
  thread: string,
  id: string,
  overrides: Partial<CheckpointInput> = {},
): CheckpointInput {
  return {
    conversationId: thread,
    id,
    checkpoint: value(`doc:${id}`),
    metadata: { source: "loop", step: 0 },
    ...overrides,
  };
}

/** A checkpoint as compared in the cases: ids, documents, values and writes as text. */
export function shape(c: StoredCheckpoint | null) {
  if (c === null) return null;
  return {
    thread: c.conversationId,
    namespace: c.namespace,
    id: c.id,
    parentId: c.parentId,
    doc: text(c.checkpoint),
    versions: c.channelVersions,
    metadata: c.metadata,
    values: c.values.map((v) => [v.channel, v.version, text(v.value)]),
    writes: c.writes.map((w) => [w.taskPath, w.taskId, w.idx, w.channel, text(w.value)]),
  };
}

/** `[thread, namespace, id]` of every checkpoint `listCheckpoints(query)` lists, page by page. */
export async function listed(
  store: MessageStoreApi,
  query: Parameters<MessageStoreApi["listCheckpoints"]>[0] = {},
  limit?: number,
): Promise<string[][]> {
  const all = await collect((page) => store.listCheckpoints({ ...query, ...page }), limit);
  return all.map((c) => [c.conversationId, c.namespace, c.id]);
}

/** The owner every case writes threads as, unless it names another. */
export const OWNER = { userId: "cp-user", agentId: "cp-agent" } as const;
