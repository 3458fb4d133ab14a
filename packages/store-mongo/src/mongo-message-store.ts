import { MessageStore } from "@message-store/core";
import { parseConfig } from "@message-store/core/adapter";
import { ADAPTER, MongoConfigSchema, type MongoStoreConfig } from "./config.js";
import { connectMongo } from "./connect-mongo.js";
import { MongoDriver } from "./mongo-driver.js";

/** A message store on MongoDB: `store.driver` has the client, the database and the mode. */
export type MongoMessageStore = MessageStore<MongoDriver>;

/** Opens {@link MongoMessageStore}s. */
export const MongoMessageStore = {
  /**
   * Validates `config` ({@link MongoConfigSchema}; a `storage: "mongodb"` key is accepted and
   * ignored), connects, creates the indexes (idempotent) and resolves to a ready store. `config`
   * is `{ uri, db }` or `{ client, db }` (a `MongoClient` you own, left open by `close()`).
   * Throws `ConfigurationError` for a bad config (before any I/O) and `ConnectionError`
   * (password redacted) when no server answers within `server_selection_timeout_ms` (default:
   * the URI's `serverSelectionTimeoutMS`, else 10 s).
   */
  async open(config: MongoStoreConfig & { storage?: typeof ADAPTER }): Promise<MongoMessageStore> {
    const resolved = parseConfig(MongoConfigSchema, config, ADAPTER);
    const { ctx, owned } = await connectMongo(resolved);
    return new MessageStore(new MongoDriver(ctx, owned, resolved.operation_timeout_ms));
  },
};
