import { MessageStore } from "@message-store/core";
import { parseConfig } from "@message-store/core/adapter";
import { ADAPTER, SqliteConfigSchema, type SqliteStoreConfig } from "./config.js";
import { openConnection, targetOf } from "./connection/open-connection.js";
import type { SqliteConnection } from "./connection/sqlite-connection.js";
import { sqliteError } from "./errors.js";
import { migrate } from "./migrate.js";
import { SqliteDriver } from "./sqlite-driver.js";

/**
 * A message store in one SQLite database. Its extras are on the driver:
 * `store.driver.location`, `store.driver.connection`.
 */
export type SqliteMessageStore = MessageStore<SqliteDriver>;

export const SqliteMessageStore = {
  /**
   * Opens (or creates) the database, in WAL mode, and brings its schema up to date (versioned
   * steps, one writer at a time). Also `MessageStore.initialize({ storage: "sqlite", path })`.
   * With `create: false`, a missing file or one without the store's tables is a `NotFoundError`
   * and nothing is created. Throws `ConfigurationError` for a bad config (before any I/O) or a database written by a
   * newer version, `StoreLockedError` when another connection holds the write lock past
   * `busy_timeout_ms`, `CorruptDataError` for a file that is not a SQLite database, and
   * `StorageError` when the file cannot be opened.
   */
  async open(config: SqliteStoreConfig & { storage?: "sqlite" }): Promise<SqliteMessageStore> {
    const resolved = parseConfig(SqliteConfigSchema, config, ADAPTER);
    const target = targetOf(resolved);
    let connection: SqliteConnection | undefined;
    try {
      connection = await openConnection(target, resolved);
      await migrate(connection, target.location, resolved.create);
    } catch (error) {
      await connection?.close();
      throw sqliteError(error, target.location) ?? error;
    }
    return new MessageStore(new SqliteDriver(connection, target.location));
  },
};
