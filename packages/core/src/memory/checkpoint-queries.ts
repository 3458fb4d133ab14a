import { matchesMetadata } from "../checkpoint/matches-metadata.js";
import type { StoredCheckpoint } from "../models/checkpoint.js";
import type { CheckpointKey } from "../paging/cursor.js";
import { compareCheckpointKeys, compareIds } from "../paging/ordering.js";
import { sliceAfter } from "../paging/page-request.js";
import type { RequestOf } from "../store/operation-table.js";
import { inScope } from "../store/scope.js";
import { type CheckpointEntry, readCheckpoint, storedCheckpoint } from "./checkpoint-state.js";
import { scopedConversationIds } from "./memory-queries.js";
import type { MemoryState } from "./memory-state.js";

/*
 * Checkpoint reads, served from memory: a thread's checkpoints are visible while its
 * conversation is live and in the scope. Every result is a copy.
 */

/** The conversation `id` when its checkpoints are visible to `scope`. */
function liveThread(state: MemoryState, id: string, scope: RequestOf<"getCheckpoint">["scope"]) {
  const c = state.conversations.get(id);
  return c && c.deletedAt === null && inScope(c, scope) ? state.checkpoints.get(id) : undefined;
}

export function getCheckpoint(
  state: MemoryState,
  { conversationId, namespace, id, scope }: RequestOf<"getCheckpoint">,
): StoredCheckpoint | null {
  const ns = liveThread(state, conversationId, scope)?.get(namespace);
  return readCheckpoint(conversationId, namespace, ns, id);
}

/** The matching checkpoints after the cursor, newest first; only the page's rows are copied. */
export function listCheckpoints(
  state: MemoryState,
  { filter, page, scope }: RequestOf<"listCheckpoints">,
): StoredCheckpoint[] {
  const threads =
    filter.conversationId === undefined
      ? scopedConversationIds(state, scope)
      : [filter.conversationId];
  const rows: { key: CheckpointKey; entry: CheckpointEntry }[] = [];
  for (const conversationId of threads) {
    const thread = liveThread(state, conversationId, scope);
    for (const [namespace, ns] of thread ?? []) {
      if (filter.namespace !== undefined && namespace !== filter.namespace) continue;
      for (const entry of ns.checkpoints.values()) {
        if (filter.before !== undefined && compareIds(entry.id, filter.before) >= 0) continue;
        if (filter.metadata && !matchesMetadata(entry.metadata, filter.metadata)) continue;
        rows.push({ key: { id: entry.id, conversationId, namespace }, entry });
      }
    }
  }
  rows.sort((a, b) => compareCheckpointKeys(a.key, b.key));
  return sliceAfter(rows, page, (r) => r.key, compareCheckpointKeys).map(({ key, entry }) =>
    storedCheckpoint(
      key.conversationId,
      key.namespace,
      state.checkpoints.get(key.conversationId)!.get(key.namespace)!,
      entry,
    ),
  );
}
