import type { TurnTrace } from "../../models/turn-trace.js";
import { cloneTrace } from "../clone.js";
import { operationKind, type Resolved, type WriteSpecs } from "../journal.js";
import type { MemoryState } from "../memory-state.js";
import { checkTrace, storedTrace } from "../operation-rules.js";

/** A trace upsert, as an operation. */
export const TRACE_OPERATIONS = {
  putTurnTrace: operationKind(
    { required: { trace: "trace" } },
    (state, op) => {
      const stored = storedTrace(state, op.trace);
      state.putTrace(stored);
      return stored;
    },
    (state, op) => checkTrace(state, op.trace, "replay"),
  ),
};

/** The driver's trace writes. */
export const TRACE_WRITES: WriteSpecs<"storeTurnTraces"> = {
  storeTurnTraces: {
    keys: (_, { traces }) => traces.flatMap((t) => [`t:${t.id}`, `m:${t.messageId}`]),
    resolve: (state, { traces }) => resolveTraces(state, traces),
  },
};

/**
 * A trace batch, all or nothing: every trace is checked, in array order, as if those before it
 * were stored (a message they take has its trace), before any is applied.
 */
function resolveTraces(state: MemoryState, traces: readonly TurnTrace[]): Resolved<TurnTrace[]> {
  const claimed = new Map<string, string>();
  for (const t of traces) {
    checkTrace(state, t, "live", claimed);
    claimed.set(t.messageId, t.id);
  }
  const copies = traces.map(cloneTrace);
  return {
    ops: copies.map((trace) => ({ op: "putTurnTrace", trace })),
    answer: (stored) =>
      (stored as TurnTrace[]).map((t, i) => (t === copies[i] ? traces[i]! : cloneTrace(t))),
  };
}
