import type { MessageStore } from "@message-store/core";
import { afterEach, beforeEach } from "vitest";

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
}

/** The per-test state every suite reads: the open store and a way to reopen it. */
export interface Harness {
  readonly name: string;
  readonly persistent: boolean;
  /** The store opened for the running test. */
  readonly store: MessageStore;
  /** Closes the running test's store and opens the backing storage again. */
  reopen(): Promise<MessageStore>;
}

/** Registers the reset/open/close hooks and returns the harness the suites share. */
export function createHarness(options: ConformanceOptions): Harness {
  let current: MessageStore | null = null;
  const opened: MessageStore[] = [];

  async function open(): Promise<MessageStore> {
    const store = await options.open();
    opened.push(store);
    current = store;
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
    persistent: options.persistent ?? true,
    get store(): MessageStore {
      if (!current) throw new Error("conformance harness: no store is open (used outside a test?)");
      return current;
    },
    async reopen(): Promise<MessageStore> {
      await current?.close();
      return open();
    },
  };
}
