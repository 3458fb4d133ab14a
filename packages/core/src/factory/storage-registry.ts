import { ConfigurationError } from "../errors.js";

/**
 * A storage adapter as the factory sees it: a name and a function that validates a config and
 * opens a store. `Store` is `MessageStore` for every real adapter (see `registerStorage` in
 * `@message-store/core/adapter`).
 */
export interface StorageAdapter<Store = unknown> {
  /** The `storage` value that selects it, e.g. `"postgres"`. */
  readonly name: string;
  /**
   * Validates `config` (the whole object given to `MessageStore.initialize`, `storage` included)
   * and resolves to a connected, ready store. Throws `ConfigurationError` for a bad config.
   */
  open(config: Record<string, unknown>): Promise<Store>;
}

/**
 * The registry is one per process, whatever number of copies of core is loaded: it lives on
 * `globalThis` under a registered symbol, so an adapter registered through one copy is found by
 * `MessageStore.initialize` of another. Its shape is part of the contract between copies and
 * only ever grows.
 */
const REGISTRY = Symbol.for("@message-store/core/storage-registry@1");

function registry(): Map<string, StorageAdapter> {
  const holder = globalThis as { [REGISTRY]?: Map<string, StorageAdapter> };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/**
 * Registers an adapter under its name; a second registration of a name replaces the first.
 * Adapter packages call it when they are imported. Throws `ConfigurationError` for an empty name
 * or a missing `open`.
 */
export function registerStorageAdapter<Store>(adapter: StorageAdapter<Store>): void {
  if (typeof adapter?.name !== "string" || adapter.name.length === 0)
    throw new ConfigurationError("storage name must be a non-empty string");
  if (typeof adapter.open !== "function")
    throw new ConfigurationError(`storage "${adapter.name}" needs an open(config) function`);
  registry().set(adapter.name, adapter as StorageAdapter);
}

/** The adapter registered under `name`, or `undefined`. */
export function findStorageAdapter(name: string): StorageAdapter | undefined {
  return registry().get(name);
}

/** Every registered name, sorted. */
export function registeredStorageNames(): string[] {
  return [...registry().keys()].sort();
}
