import { MessageStore, type StoreConfig } from "@message-store/core";
import type { StoreConfigObject } from "./store-spec.js";

/** The adapters that understand `create: false` (see each adapter's config). */
const READ_ONLY_CAPABLE = new Set(["json", "sqlite", "postgres", "mongodb"]);

/** How a command opens its store. */
export interface OpenOptions {
  /**
   * False for a command that only reads (`stats`, `show`, `traces`, `export`, a migration's
   * source): the store must exist already, and nothing is created — a missing JSON file, a
   * database without the tables or collections is a `NotFoundError` ("no message-store data
   * at …"), exit 1. Default true.
   */
  create?: boolean;
}

/**
 * Opens a store through core's factory (`MessageStore.initialize`), which imports the adapter
 * package named by `storage` (found from core, or from the CLI's own folder).
 */
export function openStore(
  config: StoreConfigObject,
  options: OpenOptions = {},
): Promise<MessageStore> {
  const readOnly =
    options.create === false && READ_ONLY_CAPABLE.has(config.storage) && config.path !== ":memory:";
  return MessageStore.initialize((readOnly ? { ...config, create: false } : config) as StoreConfig);
}

/** Opens a store, runs `fn`, and closes the store whatever happens. */
export async function withStore<T>(
  config: StoreConfigObject,
  fn: (store: MessageStore) => Promise<T>,
  options: OpenOptions = {},
): Promise<T> {
  const store = await openStore(config, options);
  try {
    return await fn(store);
  } finally {
    await store.close().catch(() => {});
  }
}
