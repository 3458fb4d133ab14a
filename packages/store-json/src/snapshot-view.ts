import type { ChannelValue, CheckpointWrite, Message, TurnTrace } from "@message-store/core";
import type { CheckpointEntry, MemoryState, StoredConversation } from "@message-store/core/memory";

/** Where a channel value or pending write belongs. */
export interface ThreadRow {
  readonly conversationId: string;
  readonly namespace: string;
}

/**
 * The records of the state at one moment, which a compaction writes while later writes go on.
 * Messages are replaced, never changed in place (`MemoryState`), so holding them is enough; a
 * conversation's `lastMessageAt` and `deletedAt` and a trace's `deletedAt` are set in place, so
 * conversations are copied (they are few) and each trace is held with its `deletedAt` of that
 * moment (they are many, and rarely change).
 */
export interface SnapshotView {
  readonly conversations: readonly StoredConversation[];
  /** In `sequence` order, the order the main file stores them in. */
  readonly messages: readonly Message[];
  readonly traces: readonly (readonly [TurnTrace, number | null])[];
  /** Checkpoint records are replaced, never changed in place: held as they are. */
  readonly checkpoints: readonly CheckpointEntry[];
  readonly checkpointValues: readonly (ThreadRow & { value: ChannelValue })[];
  readonly checkpointWrites: readonly (ThreadRow & {
    checkpointId: string;
    write: CheckpointWrite;
  })[];
}

/** The state's records now; synchronous, so no write can interleave. */
export function captureView(state: MemoryState): SnapshotView {
  return {
    conversations: Array.from(state.conversations.values(), (c) => ({ ...c })),
    messages: Array.from(state.messages.values(), (e) => e.message),
    traces: Array.from(state.traces.values(), (t) => [t, t.deletedAt] as const),
    ...captureCheckpoints(state),
  };
}

function captureCheckpoints(state: MemoryState) {
  const checkpoints: CheckpointEntry[] = [];
  const checkpointValues: SnapshotView["checkpointValues"][number][] = [];
  const checkpointWrites: SnapshotView["checkpointWrites"][number][] = [];
  for (const [conversationId, thread] of state.checkpoints) {
    for (const [namespace, ns] of thread) {
      for (const id of ns.ids) checkpoints.push(ns.checkpoints.get(id)!);
      for (const value of ns.values.values())
        checkpointValues.push({ conversationId, namespace, value });
      for (const [checkpointId, writes] of ns.writes)
        for (const write of writes.values())
          checkpointWrites.push({ conversationId, namespace, checkpointId, write });
    }
  }
  return { checkpoints, checkpointValues, checkpointWrites };
}

/** A trace as it was when the view was captured. */
export function traceAsCaptured([trace, deletedAt]: readonly [
  TurnTrace,
  number | null,
]): TurnTrace {
  return trace.deletedAt === deletedAt ? trace : { ...trace, deletedAt };
}
