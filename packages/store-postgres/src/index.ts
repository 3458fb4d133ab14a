/**
 * PostgreSQL adapter of message-store, on `pg` and `pg-pool`.
 * @packageDocumentation
 */
import type { PostgresStoreConfig } from "@message-store/core";
import { PostgresMessageStore } from "./postgres-message-store.js";

export { isConnectionFailure, toStoreError } from "./errors.js";
export { type MigrateOptions, migrate } from "./migrate.js";
export {
  decodeJson,
  decodeText,
  encodeJson,
  encodeText,
} from "./nul-codec.js";
export { PostgresMessageStore, type PostgresStoreOptions } from "./postgres-message-store.js";
export { LATEST_VERSION, MIGRATIONS, MIGRATIONS_TABLE, type Migration } from "./schema.js";

/**
 * What `MessageStore.initialize({ storage: "postgres", … })` calls. The factory has already
 * validated the config; it is validated again (cheaply) so direct callers get the same checks.
 * Resolves to a connected, migrated store. See {@link PostgresMessageStore.open}.
 */
export function createMessageStore(config: PostgresStoreConfig): Promise<PostgresMessageStore> {
  return PostgresMessageStore.open(config);
}
