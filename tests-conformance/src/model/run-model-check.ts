import { MessageStore } from "@message-store/core";
import { MemoryDriver } from "@message-store/core/memory";
import fc from "fast-check";
import type { RealStore } from "./command.js";
import { commandSequences } from "./command-arbitrary.js";

/** The model-based test's default budget: random sequences per run of the suite. */
export const DEFAULT_MODEL_RUNS = 25;

/**
 * How long one sequence (at most `maxCommands` operations, and the fresh store it starts on) may
 * take: a hang detector, not a speed target. The test's time limit is this per sequence, so the
 * budget is counted in steps and a slow or loaded machine only makes the check longer.
 */
export const MODEL_RUN_LIMIT_MS = 60_000;

/** Budget and seed of one model-based check. */
export interface ModelCheckOptions {
  /** Random sequences to run. */
  numRuns: number;
  /** fast-check seed; random when omitted. */
  seed?: number;
  /** Longest sequence generated. Default 40. */
  maxCommands?: number;
  /** The most one sequence may take (default {@link MODEL_RUN_LIMIT_MS}); a slower one fails the check. */
  runLimitMs?: number;
  /** Stops the check: the sequence running fails, no other starts (e.g. the test's timeout). */
  signal?: AbortSignal;
}

/** Thrown when a sequence passes `runLimitMs` or the check is aborted. */
class Stopped extends Error {}

const ABORTED = "the model-based check was stopped (test timed out?)";

/** `work`, or a {@link Stopped} after `ms` or on `signal`'s abort, whichever comes first. */
async function bounded<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  // The work left running after a stop fails on its own (closed stores); nobody awaits it.
  work.catch(() => {});
  const stop = new Promise<never>((_, reject) => {
    if (signal?.aborted) reject(new Stopped(ABORTED));
    timer = setTimeout(
      () => reject(new Stopped(`a sequence of operations took more than ${ms} ms: a step hangs`)),
      ms,
    );
    onAbort = () => reject(new Stopped(ABORTED));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
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
  const limit = options.runLimitMs ?? MODEL_RUN_LIMIT_MS;
  // Once stopped, no sequence runs any more (shrinking included): the check ends at once.
  let stopped: Stopped | null = null;
  const property = fc.asyncProperty(commands, async (cmds) => {
    if (stopped || options.signal?.aborted) fc.pre(false);
    const reference = new MessageStore(new MemoryDriver());
    try {
      const run = async () => {
        const real = first ? probe : await fresh();
        first = false;
        await fc.asyncModelRun(() => ({ model: { store: reference }, real }), cmds);
      };
      await bounded(run(), limit, options.signal);
    } catch (error) {
      if (error instanceof Stopped) stopped = error;
      throw error;
    } finally {
      await reference.close();
    }
  });
  const details = await fc.check(property, {
    numRuns: options.numRuns,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  if (stopped) throw stopped;
  if (options.signal?.aborted) throw new Stopped(ABORTED);
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
