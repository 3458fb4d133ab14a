import type { ResolvedJsonConfig } from "@message-store/core";
import { JsonMessageStore, type JsonMessageStoreOptions } from "./json-message-store.js";

export {
  DEFAULT_COMPACT_THRESHOLD_BYTES,
  JsonMessageStore,
  type JsonMessageStoreOptions,
  MEMORY_PATH,
} from "./json-message-store.js";

/**
 * The factory `MessageStore.initialize({ storage: "json", … })` calls. Also usable directly: the
 * config is validated again with core's `JsonConfigSchema` (`ConfigurationError` if wrong).
 */
export function createMessageStore(
  config: ResolvedJsonConfig | JsonMessageStoreOptions,
): Promise<JsonMessageStore> {
  return JsonMessageStore.open(config);
}
