import { registerStorage } from "@message-store/core/adapter";
import { ADAPTER } from "./redis-driver.js";
import { RedisMessageStore, type RedisStoreConfig } from "./redis-message-store.js";

export { ADAPTER, type RedisClient, RedisDriver } from "./redis-driver.js";
export {
  RedisConfigSchema,
  RedisMessageStore,
  type RedisStoreConfig,
} from "./redis-message-store.js";

// Importing the package registers the adapter: `MessageStore.initialize({ storage: "redis-example", url })`.
registerStorage({
  name: ADAPTER,
  open: (config) => RedisMessageStore.open(config as RedisStoreConfig),
});

declare module "@message-store/core" {
  interface StorageConfigMap {
    "redis-example": RedisStoreConfig;
  }
}
