import type { MessageStore } from "../store/message-store.js";
import {
  type StorageAdapter as AnyStorageAdapter,
  registerStorageAdapter,
} from "./storage-registry.js";

/** An adapter for `MessageStore.initialize`: its `storage` name and how to open a store. */
export type StorageAdapter = AnyStorageAdapter<MessageStore>;

/**
 * Makes `MessageStore.initialize({ storage: adapter.name, … })` open stores with `adapter.open`.
 * Call it at the top level of your package's entry module, so that importing the package
 * registers the adapter (and mark that module in `sideEffects`); declare the config type in
 * `StorageConfigMap` next to it. The registry is shared by every copy of core in the process.
 * A later registration of the same name replaces the earlier one. Throws `ConfigurationError`
 * for an empty name or a missing `open`.
 */
export function registerStorage(adapter: StorageAdapter): void {
  registerStorageAdapter(adapter);
}
