import { describe, it } from "vitest";
import type { Harness } from "../harness.js";
import { DEFAULT_MODEL_RUNS, MODEL_RUN_LIMIT_MS, runModelCheck } from "../model/run-model-check.js";

function envNumber(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n))
    throw new Error(`message-store conformance: ${name}=${raw} is not an integer`);
  return n;
}

/**
 * Model-based testing: random sequences of writes and reads over the whole contract the adapter
 * declares (conversations, messages, batches, ties, flags, upserts that move timestamps,
 * sessions, traces, soft delete and restore, purge, deletes, erasure, search, the embedding
 * queue, views by user and tenant, reopen) run against the adapter and against core's
 * `MemoryDriver`, every result compared. Budget: `modelRuns` (default 25) or
 * `MESSAGE_STORE_CONFORMANCE_RUNS`; seed: `modelSeed` or `MESSAGE_STORE_CONFORMANCE_SEED`.
 */
export function modelBasedSuite(h: Harness): void {
  describe("model-based", () => {
    const runs =
      envNumber("MESSAGE_STORE_CONFORMANCE_RUNS") ?? h.options.modelRuns ?? DEFAULT_MODEL_RUNS;
    const seed = envNumber("MESSAGE_STORE_CONFORMANCE_SEED") ?? h.options.modelSeed;
    // The limit is counted in sequences (each may take MODEL_RUN_LIMIT_MS), not in seconds for
    // the whole: a loaded machine makes the check slower, not failed; a hang fails one sequence.
    it(`random operation sequences agree with the reference driver (${runs} runs)`, {
      timeout: (runs + 1) * MODEL_RUN_LIMIT_MS,
    }, async ({ signal }) => {
      await runModelCheck(() => h.fresh(), {
        numRuns: runs,
        signal,
        ...(seed === undefined ? {} : { seed }),
      });
    });
  });
}
