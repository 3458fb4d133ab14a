/**
 * PostgreSQL adapter of message-store, on `pg`. Importing this module registers
 * the adapter, so that `MessageStore.initialize({ storage: "postgres", … })` opens a
 * {@link PostgresMessageStore} and type-checks its config.
 * @packageDocumentation
 */
import { registerStorage } from "@message-store/core/adapter";
import { ADAPTER, type PostgresStoreConfig } from "./config.js";
import { PostgresMessageStore } from "./postgres-message-store.js";

export {
  PostgresConfigSchema,
  type PostgresStoreConfig,
  type ResolvedPostgresConfig,
} from "./config.js";
export type { Partitions } from "./layout.js";
export { migrate } from "./migrate.js";
export { PostgresDriver } from "./postgres-driver.js";
export { PostgresMessageStore } from "./postgres-message-store.js";
export { LATEST_VERSION } from "./sql/migrations.js";
export type { PostgresStoreOptions } from "./store-options.js";

registerStorage({
  name: ADAPTER,
  open: (config) => PostgresMessageStore.open(config as PostgresStoreConfig),
});

declare module "@message-store/core" {
  interface StorageConfigMap {
    /** `{ storage: "postgres", dsn, … }` or `{ storage: "postgres", pool, … }`. */
    postgres: PostgresStoreConfig;
  }
}
