/**
 * The configuration of every storage adapter loaded in this program, by `storage` name. Core
 * declares it empty; each adapter package adds its own entry by declaration merging, so that
 * importing the adapter is what makes its config type-check:
 *
 * ```ts
 * declare module "@message-store/core" {
 *   interface StorageConfigMap {
 *     redis: RedisStoreConfig; // the keys beside `storage`
 *   }
 * }
 * ```
 *
 * A third-party adapter augments it exactly the same way.
 */
// biome-ignore lint/suspicious/noEmptyInterface: adapters augment it (declaration merging)
export interface StorageConfigMap {}

/** A `storage` name some imported adapter has declared. */
export type StorageName = keyof StorageConfigMap & string;

/**
 * What {@link StoreConfig} is while no adapter package is imported anywhere in the program: a
 * string that cannot be passed, so that the compiler's error names the cause (`Argument of type
 * '{ storage: string; … }' is not assignable to parameter of type '"no storage adapter is
 * imported: …"'`) instead of `never`.
 */
export type NoStorageAdapterImported =
  "no storage adapter is imported: add import '@message-store/json' (or '@message-store/postgres', '@message-store/mongodb', …) next to this call, or import '@message-store/core/memory'";

/**
 * What `MessageStore.initialize` accepts: `{ storage: name, …that adapter's keys }` for every
 * adapter in {@link StorageConfigMap}. With the adapter imported, a misspelt key, a wrong type, a
 * missing required key or an unknown `storage` name is a compile error; with none imported, every
 * config is, with {@link NoStorageAdapterImported} as the message.
 */
export type StoreConfig = [StorageName] extends [never]
  ? NoStorageAdapterImported
  : {
      [K in StorageName]: { storage: K } & StorageConfigMap[K];
    }[StorageName];
