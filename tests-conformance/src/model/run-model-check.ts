import { MessageStore } from "@message-store/core";
import { MemoryDriver } from "@message-store/core/memory";
import fc from "fast-check";
import type { RealStore } from "./command.js";
import { commandSequences } from "./command-arbitrary.js";

/** The model-based test's default budget: random sequences per run of the suite. */
export const DEFAULT_MODEL_RUNS = 25;

/** Budget and seed of one model-based check. */
export interface ModelCheckOptions {
  /** Random sequences to run. */
  numRuns: number;
  /** fast-check seed; random when omitted. */
  seed?: number;
  /** Longest sequence generated. Default 40. */
  maxCommands?: number;
}

/**
 * Runs random operation sequences against a fresh store (from `fresh()`) and a fresh store over
 * core's `MemoryDriver` (the reference), comparing every result. On a mismatch fast-check shrinks the sequence and throws with
 * the seed, the replay path and the shrunk sequence printed as code (one `await store.…;` per
 * operation), followed by the first difference, naming the rule and the field.
 */
export async function runModelCheck(
  fresh: () => Promise<RealStore>,
  options: ModelCheckOptions,
): Promise<void> {
  const probe = await fresh();
  const persistent = probe.reopen !== null;
  const commands = commandSequences(probe.store.capabilities, persistent, options.maxCommands);
  let first = true;
  const property = fc.asyncProperty(commands, async (cmds) => {
    const real = first ? probe : await fresh();
    first = false;
    const reference = new MessageStore(new MemoryDriver());
    try {
      await fc.asyncModelRun(() => ({ model: { store: reference }, real }), cmds);
    } finally {
      await reference.close();
    }
  });
  const details = await fc.check(property, {
    numRuns: options.numRuns,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  if (!details.failed) return;
  const cause = details.errorInstance;
  if (details.counterexample === null) throw cause;
  const sequence = String(details.counterexample[0])
    .replace(/\s*\/\*replayPath=.*\*\/\s*$/, "")
    .split(";,")
    .map((op) => `  ${op.replace(/;$/, "")};`);
  const reason = cause instanceof Error ? cause.message : String(cause);
  throw new Error(
    [
      `model-based check failed after ${details.numRuns} run(s) (seed ${details.seed}, path "${details.counterexamplePath}"; rerun with MESSAGE_STORE_CONFORMANCE_SEED=${details.seed}), shrunk ${details.numShrinks} time(s)`,
      `Counterexample: ${sequence.length} operation(s) on an empty store, the last one differs:`,
      ...sequence,
      reason,
    ].join("\n"),
    { cause },
  );
}
