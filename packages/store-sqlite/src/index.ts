import { registerStorage } from "@message-store/core/adapter";
import { ADAPTER, type SqliteStoreConfig } from "./config.js";
import { SqliteMessageStore } from "./sqlite-message-store.js";

export {
  DEFAULT_BUSY_TIMEOUT_MS,
  MEMORY_PATH,
  type ResolvedSqliteConfig,
  SqliteConfigSchema,
  type SqliteStoreConfig,
} from "./config.js";
export type {
  SqliteConnection,
  SqlRow,
  SqlStatements,
  SqlValue,
} from "./connection/sqlite-connection.js";
export { SqliteDriver } from "./sqlite-driver.js";
export { SqliteMessageStore } from "./sqlite-message-store.js";

// Importing the package registers the adapter: `MessageStore.initialize({ storage: "sqlite", … })`.
registerStorage({
  name: ADAPTER,
  open: (config) => SqliteMessageStore.open(config as SqliteStoreConfig),
});

declare module "@message-store/core" {
  interface StorageConfigMap {
    sqlite: SqliteStoreConfig;
  }
}
