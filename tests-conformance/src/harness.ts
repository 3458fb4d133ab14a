import { AsyncLocalStorage } from "node:async_hooks";
import type { MessageStore } from "@message-store/core";
import { afterEach, aroundEach, beforeEach } from "vitest";
import type { CaseContext } from "./cases/contract-case.js";
import type { RealStore } from "./model/command.js";

/** What the suite needs from the adapter under test. */
export interface ConformanceOptions {
  /** Shown in every test title: `message-store conformance: <name>`. */
  name: string;
  /** Opens the SAME backing storage on every call (used for close/reopen persistence). */
  open: () => Promise<MessageStore>;
  /** Empties the storage; run before each test, after the previous test's stores were closed. */
  reset: () => Promise<void>;
  /**
   * Set `false` for adapters whose data does not outlive `close()` (e.g. `":memory:"`);
   * persistence tests are then reported as skipped. Default `true`.
   */
  persistent?: boolean;
  /**
   * Whether `open()` may be called while another store is open on the same storage (several
   * connections to one database). The atomicity cases then poll from several instances; without
   * it (a locked file, memory) they poll one instance from several loops. Default: `persistent`.
   */
  concurrentInstances?: boolean;
  /**
   * Runs only the suites named here (see `SUITE_NAMES`); the others are reported as skipped.
   * The environment variable `MESSAGE_STORE_CONFORMANCE_ONLY` (comma-separated) adds to it.
   */
  only?: readonly string[];
  /**
   * Skips the suites named here, reported as skipped. `MESSAGE_STORE_CONFORMANCE_SKIP`
   * (comma-separated) adds to it.
   */
  skip?: readonly string[];
  /**
   * Model-based test budget: number of random operation sequences (default 25; env
   * `MESSAGE_STORE_CONFORMANCE_RUNS` wins) and the seed (default random; env
   * `MESSAGE_STORE_CONFORMANCE_SEED` wins). A failure prints the seed and the shrunk sequence.
   */
  modelRuns?: number;
  /**
   * Contract-rule cases (by id, e.g. `"atomic-batch"`) the adapter is known to break, with the
   * reason: reported as skipped with `KNOWN VIOLATION of "<rule>": <reason>`, never silently.
   * For documented limits of a deployment (e.g. MongoDB without transactions); fix, then remove.
   */
  knownViolations?: Readonly<Record<string, string>>;
  modelSeed?: number;
  /**
   * Optional: restarts the backing server (or reopens the file) while no store is open. When
   * given, the persistence cases write, close, call `restart()`, open and read. The harness
   * closes every open store first.
   */
  restart?: () => Promise<void>;
  /**
   * Optional: raw record counts per table/collection, read behind the API (e.g.
   * `{ conversations: 1, messages: 3, turn_traces: 1 }`). When given, the cascade and erasure
   * cases check that nothing is left behind: every count equals what the API shows.
   */
  inspect?: () => Promise<Record<string, number>>;
}

/** The per-test state every suite reads: the open store and a way to reopen it. */
export interface Harness {
  readonly name: string;
  readonly persistent: boolean;
  readonly options: ConformanceOptions;
  /** The store opened for the running test. */
  readonly store: MessageStore;
  /** Closes the running test's store and opens the backing storage again. */
  reopen(): Promise<MessageStore>;
  /** Closes every open store, runs `options.restart` (if any), and opens the storage again. */
  restart(): Promise<MessageStore>;
  /** Closes every open store, resets the storage and opens it: an empty store for one more run. */
  fresh(): Promise<RealStore>;
  /** What a contract case runs against. */
  caseContext(): CaseContext;
}

/** The stores one test opened, and whether it has ended (passed, failed or timed out). */
class TestRun {
  readonly stores: MessageStore[] = [];
  current: MessageStore | null = null;
  ended = false;
  /** Harness calls in flight (reset, open, close), which the test's end waits for. */
  readonly pending = new Set<Promise<unknown>>();
}

/**
 * Registers the reset/open/close hooks and returns the harness the suites share.
 *
 * Each test runs in a {@link TestRun} of its own (carried by `AsyncLocalStorage` into everything
 * the test body starts): its stores, and nothing else, are what `store`, `reopen`, `fresh` and
 * the case context reach. When the test ends — a timeout included, while its body still runs —
 * the harness waits for the run's calls in flight and closes its stores, and from then on every
 * harness call of that body throws: a case that times out fails alone, its leftover work cannot
 * close, reset or write into the stores of the cases after it.
 */
export function createHarness(options: ConformanceOptions): Harness {
  const runs = new AsyncLocalStorage<TestRun>();
  const persistent = options.persistent ?? true;
  const concurrent = options.concurrentInstances ?? persistent;

  /** The calling test's run; throws once it has ended. */
  function active(): TestRun {
    const run = runs.getStore();
    if (!run) throw new Error("conformance harness: no test is running (used outside a test?)");
    if (run.ended) {
      throw new Error(
        "conformance harness: this test has ended (timed out?); its remaining work is stopped",
      );
    }
    return run;
  }

  /** Runs a harness step of `run`, which the end of the test waits for. */
  async function step<T>(run: TestRun, work: () => Promise<T>): Promise<T> {
    const done = work();
    run.pending.add(done);
    try {
      return await done;
    } finally {
      run.pending.delete(done);
    }
  }

  async function open(run: TestRun, current: boolean): Promise<MessageStore> {
    const store = await step(run, () => options.open());
    run.stores.push(store);
    if (run.ended) {
      await store.close();
      throw new Error("conformance harness: this test has ended; the store it opened is closed");
    }
    if (current) run.current = store;
    return store;
  }

  async function closeAll(run: TestRun): Promise<void> {
    run.current = null;
    for (const store of run.stores.splice(0)) await step(run, () => store.close());
  }

  aroundEach(async (runTest) => {
    await runs.run(new TestRun(), runTest);
  });

  beforeEach(async () => {
    const run = active();
    await step(run, () => options.reset());
    await open(run, true);
  });

  afterEach(async () => {
    const run = runs.getStore();
    if (!run) return;
    run.ended = true;
    await Promise.allSettled([...run.pending]);
    for (const store of run.stores.splice(0)) await store.close();
    run.current = null;
  });

  return {
    name: options.name,
    persistent,
    options,
    get store(): MessageStore {
      const run = active();
      if (!run.current) throw new Error("conformance harness: no store is open in this test");
      return run.current;
    },
    async reopen(): Promise<MessageStore> {
      const run = active();
      const current = run.current;
      if (current) await step(run, () => current.close());
      return open(run, true);
    },
    async restart(): Promise<MessageStore> {
      const run = active();
      await closeAll(run);
      await step(run, async () => options.restart?.());
      return open(run, true);
    },
    async fresh(): Promise<RealStore> {
      const run = active();
      await closeAll(run);
      await step(run, () => options.reset());
      const real: RealStore = {
        store: await open(run, true),
        reopen: persistent
          ? async () => {
              const current = active().current;
              if (current) await step(run, () => current.close());
              return open(run, true);
            }
          : null,
      };
      return real;
    },
    caseContext(): CaseContext {
      return {
        store: this.store,
        openAnother: concurrent ? () => open(active(), false) : null,
        restart: persistent ? () => this.restart() : null,
        inspect: options.inspect ?? null,
      };
    },
  };
}
