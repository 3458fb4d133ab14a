import type { Message, TurnTrace } from "@message-store/core";
import type { MemoryState, StoredConversation } from "@message-store/core/memory";

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
}

/** The state's records now; synchronous, so no write can interleave. */
export function captureView(state: MemoryState): SnapshotView {
  return {
    conversations: Array.from(state.conversations.values(), (c) => ({ ...c })),
    messages: Array.from(state.messages.values(), (e) => e.message),
    traces: Array.from(state.traces.values(), (t) => [t, t.deletedAt] as const),
  };
}

/** A trace as it was when the view was captured. */
export function traceAsCaptured([trace, deletedAt]: readonly [
  TurnTrace,
  number | null,
]): TurnTrace {
  return trace.deletedAt === deletedAt ? trace : { ...trace, deletedAt };
}
