import { MessageStore, type StoreConfig } from "@message-store/core";
import type { StoreConfigObject } from "./store-spec.js";

/**
 * Opens a store through core's factory (`MessageStore.initialize`), which imports the adapter
 * package named by `storage` (found from core, or from the CLI's own folder).
 */
export function openStore(config: StoreConfigObject): Promise<MessageStore> {
  return MessageStore.initialize(config as StoreConfig);
}

/** Opens a store, runs `fn`, and closes the store whatever happens. */
export async function withStore<T>(
  config: StoreConfigObject,
  fn: (store: MessageStore) => Promise<T>,
): Promise<T> {
  const store = await openStore(config);
  try {
    return await fn(store);
  } finally {
    await store.close().catch(() => {});
  }
}
