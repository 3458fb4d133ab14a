import type { MessageStore } from "@message-store/core";
import { afterEach, beforeEach } from "vitest";
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

/** Registers the reset/open/close hooks and returns the harness the suites share. */
export function createHarness(options: ConformanceOptions): Harness {
  let current: MessageStore | null = null;
  const opened: MessageStore[] = [];
  const persistent = options.persistent ?? true;
  const concurrent = options.concurrentInstances ?? persistent;

  async function open(): Promise<MessageStore> {
    const store = await options.open();
    opened.push(store);
    current = store;
    return store;
  }

  async function openAnother(): Promise<MessageStore> {
    const store = await options.open();
    opened.push(store);
    return store;
  }

  beforeEach(async () => {
    await options.reset();
    await open();
  });

  afterEach(async () => {
    current = null;
    const stores = opened.splice(0);
    for (const store of stores) await store.close();
  });

  return {
    name: options.name,
    persistent,
    options,
    get store(): MessageStore {
      if (!current) throw new Error("conformance harness: no store is open (used outside a test?)");
      return current;
    },
    async reopen(): Promise<MessageStore> {
      await current?.close();
      return open();
    },
    async restart(): Promise<MessageStore> {
      for (const store of opened.splice(0)) await store.close();
      current = null;
      await options.restart?.();
      return open();
    },
    async fresh(): Promise<RealStore> {
      for (const store of opened.splice(0)) await store.close();
      current = null;
      await options.reset();
      const real: RealStore = {
        store: await open(),
        reopen: persistent
          ? async () => {
              await current?.close();
              return open();
            }
          : null,
      };
      return real;
    },
    caseContext(): CaseContext {
      return {
        store: this.store,
        openAnother: concurrent ? openAnother : null,
        restart: persistent ? () => this.restart() : null,
        inspect: options.inspect ?? null,
      };
    },
  };
}
