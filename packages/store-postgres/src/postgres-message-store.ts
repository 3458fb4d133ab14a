import { MessageStore } from "@message-store/core";
import type { ADAPTER, PostgresStoreConfig } from "./config.js";
import { PostgresDriver } from "./postgres-driver.js";

/**
 * The PostgreSQL message store: a {@link MessageStore} over a {@link PostgresDriver}, whose
 * extras (`pool`, `schema`, `partitions`, `usesPgvector`) are reached as `store.driver.…`.
 */
export type PostgresMessageStore = MessageStore<PostgresDriver>;

/**
 * Opens a PostgreSQL message store, connected and migrated: `MessageStore.initialize({ storage:
 * "postgres", … })` does the same through the adapter registry.
 */
export const PostgresMessageStore = {
  /** See {@link PostgresDriver.open}, which resolves to the store's driver. */
  async open(
    config: PostgresStoreConfig & { storage?: typeof ADAPTER },
  ): Promise<PostgresMessageStore> {
    return new MessageStore(await PostgresDriver.open(config));
  },
};
