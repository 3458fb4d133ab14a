import type {
  ChannelValue,
  CheckpointWrite,
  JsonObject,
  StoredCheckpoint,
} from "@message-store/core";
import {
  type CheckpointKey,
  compareCheckpointKeys,
  compareWrites,
  matchesMetadata,
  type RequestOf,
  sliceAfter,
} from "@message-store/core/adapter";
import type { Operation } from "@message-store/core/memory";
import type { SqlRow, SqlStatements } from "./connection/sqlite-connection.js";
import { all, cond, scopeCondition } from "./sql/scope-conditions.js";

/*
 * Checkpoints in SQL: a checkpoint row per `(conversation, namespace, id)`, a channel value per
 * `(conversation, namespace, channel, version)` (stored once, shared by the checkpoints that
 * name that version), and pending writes per `(conversation, namespace, checkpoint, task, idx)`.
 */

/** Bytes as the library returned them (a Buffer, an ArrayBuffer), as a plain Uint8Array copy. */
export function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  throw new TypeError("expected a BLOB");
}

/** Stores the checkpoint parts of resolved operations (the records are stored by `WorkingSet`). */
export async function applyCheckpointOps(tx: SqlStatements, ops: readonly Operation[]) {
  for (const op of ops) {
    if (op.op === "putCheckpoint") {
      const { conversationId: c, namespace: ns, values, ...entry } = op.checkpoint;
      for (const v of values)
        await tx.run(
          "INSERT INTO checkpoint_values (conversation_id, namespace, channel, version, value_type, value_data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
          [c, ns, v.channel, v.version, v.value.type, v.value.data],
        );
      await tx.run(
        `INSERT INTO checkpoints (conversation_id, namespace, id, parent_id, checkpoint_type, checkpoint_data, channel_versions, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET parent_id = excluded.parent_id, checkpoint_type = excluded.checkpoint_type, checkpoint_data = excluded.checkpoint_data, channel_versions = excluded.channel_versions, metadata = excluded.metadata`,
        [
          c,
          ns,
          entry.id,
          entry.parentId,
          entry.checkpoint.type,
          entry.checkpoint.data,
          JSON.stringify(entry.channelVersions),
          JSON.stringify(entry.metadata),
        ],
      );
    } else if (op.op === "putCheckpointWrites") {
      const {
        conversationId: c,
        namespace: ns,
        checkpointId,
        taskId,
        taskPath,
        writes,
      } = op.writes;
      // A negative idx (LangGraph's special channels) replaces; another keeps what is stored.
      for (const w of writes)
        await tx.run(
          `INSERT INTO checkpoint_writes (conversation_id, namespace, checkpoint_id, task_id, idx, task_path, channel, value_type, value_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT DO ${w.idx < 0 ? "UPDATE SET task_path = excluded.task_path, channel = excluded.channel, value_type = excluded.value_type, value_data = excluded.value_data" : "NOTHING"}`,
          [c, ns, checkpointId, taskId, w.idx, taskPath, w.channel, w.value.type, w.value.data],
        );
    } else if (op.op === "deleteCheckpoints") {
      await deleteThreadCheckpoints(tx, op.id);
    }
  }
}

/** Deletes a thread's checkpoints, values and writes. */
export async function deleteThreadCheckpoints(tx: SqlStatements, conversationId: string) {
  for (const table of ["checkpoint_writes", "checkpoint_values", "checkpoints"])
    await tx.run(`DELETE FROM ${table} WHERE conversation_id = ?`, [conversationId]);
}

type EntryRow = SqlRow & {
  conversation_id: string;
  namespace: string;
  id: string;
  parent_id: string | null;
  checkpoint_type: string;
  checkpoint_data: Uint8Array;
  channel_versions: string;
  metadata: string;
};

const ENTRY_SELECT =
  "SELECT k.conversation_id, k.namespace, k.id, k.parent_id, k.checkpoint_type, k.checkpoint_data, k.channel_versions, k.metadata FROM checkpoints k JOIN conversations c ON c.id = k.conversation_id";

/** A checkpoint row with its values (by channel, code-point order) and writes. */
async function withParts(tx: SqlStatements, row: EntryRow): Promise<StoredCheckpoint> {
  const key = [row.conversation_id, row.namespace];
  const valueRows = await tx.all(
    "SELECT v.channel, v.version, v.value_type, v.value_data FROM checkpoint_values v JOIN json_each(?) j ON v.channel = j.key AND v.version = j.value WHERE v.conversation_id = ? AND v.namespace = ? ORDER BY v.channel",
    [row.channel_versions, ...key],
  );
  const writeRows = await tx.all(
    "SELECT task_id, task_path, idx, channel, value_type, value_data FROM checkpoint_writes WHERE conversation_id = ? AND namespace = ? AND checkpoint_id = ?",
    [...key, row.id],
  );
  const values: ChannelValue[] = valueRows.map((v) => ({
    channel: v.channel as string,
    version: v.version as string,
    value: { type: v.value_type as string, data: bytesOf(v.value_data) },
  }));
  const writes: CheckpointWrite[] = writeRows
    .map((w) => ({
      taskId: w.task_id as string,
      taskPath: w.task_path as string,
      idx: Number(w.idx),
      channel: w.channel as string,
      value: { type: w.value_type as string, data: bytesOf(w.value_data) },
    }))
    .sort(compareWrites);
  return {
    conversationId: row.conversation_id,
    namespace: row.namespace,
    id: row.id,
    parentId: row.parent_id,
    checkpoint: { type: row.checkpoint_type, data: bytesOf(row.checkpoint_data) },
    channelVersions: JSON.parse(row.channel_versions) as Record<string, string>,
    metadata: JSON.parse(row.metadata) as JsonObject,
    values,
    writes,
  };
}

/** A thread's checkpoints are visible while its conversation is live and in the scope. */
const visibleThread = (scope: RequestOf<"getCheckpoint">["scope"]) =>
  all(cond("c.deleted_at IS NULL"), scopeCondition(scope, "c."));

export async function getCheckpoint(
  tx: SqlStatements,
  { conversationId, namespace, id, scope }: RequestOf<"getCheckpoint">,
): Promise<StoredCheckpoint | null> {
  const where = all(
    cond("k.conversation_id = ? AND k.namespace = ?", conversationId, namespace),
    id === null ? cond("1") : cond("k.id = ?", id),
    visibleThread(scope),
  );
  const [row] = await tx.all<EntryRow>(
    `${ENTRY_SELECT} WHERE ${where.sql} ORDER BY k.id DESC LIMIT 1`,
    where.params,
  );
  return row ? withParts(tx, row) : null;
}

/**
 * The matching checkpoints newest first: the rows are filtered and ordered with core's
 * `matchesMetadata` and `compareCheckpointKeys`, then only the page's rows get their parts.
 */
export async function listCheckpoints(
  tx: SqlStatements,
  { filter, page, scope }: RequestOf<"listCheckpoints">,
): Promise<StoredCheckpoint[]> {
  const where = all(
    visibleThread(scope),
    filter.conversationId === undefined
      ? cond("1")
      : cond("k.conversation_id = ?", filter.conversationId),
    filter.namespace === undefined ? cond("1") : cond("k.namespace = ?", filter.namespace),
    filter.before === undefined ? cond("1") : cond("k.id < ?", filter.before),
  );
  const rows = (await tx.all<EntryRow>(`${ENTRY_SELECT} WHERE ${where.sql}`, where.params)).filter(
    (row) => !filter.metadata || matchesMetadata(JSON.parse(row.metadata), filter.metadata),
  );
  const keyOf = (row: EntryRow): CheckpointKey => ({
    id: row.id,
    conversationId: row.conversation_id,
    namespace: row.namespace,
  });
  rows.sort((a, b) => compareCheckpointKeys(keyOf(a), keyOf(b)));
  const out: StoredCheckpoint[] = [];
  for (const row of sliceAfter(rows, page, keyOf, compareCheckpointKeys))
    out.push(await withParts(tx, row));
  return out;
}
