import { registerStorage } from "@message-store/core/adapter";
import { ADAPTER, type JsonStoreConfig } from "./config.js";
import { JsonMessageStore } from "./json-message-store.js";

export {
  DEFAULT_COMPACT_THRESHOLD_BYTES,
  JsonConfigSchema,
  type JsonStoreConfig,
  MEMORY_PATH,
  type ResolvedJsonConfig,
} from "./config.js";
export { JsonDriver } from "./json-driver.js";
export { JsonMessageStore } from "./json-message-store.js";

// Importing the package registers the adapter: `MessageStore.initialize({ storage: "json", … })`.
registerStorage({
  name: ADAPTER,
  open: (config) => JsonMessageStore.open(config as JsonStoreConfig),
});

declare module "@message-store/core" {
  interface StorageConfigMap {
    json: JsonStoreConfig;
  }
}
