/**
 * MongoDB adapter of message-store, on the official `mongodb` driver. Importing this module
 * registers the adapter, so that `MessageStore.initialize({ storage: "mongodb", uri, db })` opens
 * a {@link MongoMessageStore} and type-checks its config.
 * @packageDocumentation
 */
import { registerStorage } from "@message-store/core/adapter";
import { ADAPTER, type MongoStoreConfig } from "./config.js";
import { MongoMessageStore } from "./mongo-message-store.js";

export { COLLECTIONS, INDEXES } from "./collections.js";
export {
  MongoConfigSchema,
  type MongoStoreConfig,
  type ResolvedMongoConfig,
} from "./config.js";
export { decodeKey, encodeKey, JSON_TEXT_KEY, KEY_ESCAPE, MAX_STORED_DEPTH } from "./key-codec.js";
export { MongoDriver } from "./mongo-driver.js";
export { MongoMessageStore } from "./mongo-message-store.js";

registerStorage({
  name: ADAPTER,
  open: (config) => MongoMessageStore.open(config as MongoStoreConfig),
});

declare module "@message-store/core" {
  interface StorageConfigMap {
    /** `{ storage: "mongodb", uri, db }` or `{ storage: "mongodb", client, db }`. */
    mongodb: MongoStoreConfig;
  }
}
