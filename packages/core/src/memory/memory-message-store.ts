import { z } from "zod";
import { parseConfig } from "../factory/parse-config.js";
import { MessageStore } from "../store/message-store.js";
import { MemoryDriver } from "./memory-driver.js";

/** The `storage` name of the in-memory store. */
export const MEMORY_STORAGE = "memory";

/** The in-memory store's configuration: no keys besides `storage`. */
export const MemoryConfigSchema = z.strictObject({});

/**
 * What `MemoryMessageStore.open` and `MessageStore.initialize({ storage: "memory" })` accept:
 * nothing besides `storage`.
 */
export type MemoryStoreConfig = Record<never, never>;

/** A store over a {@link MemoryDriver}. */
export type MemoryMessageStore = MessageStore<MemoryDriver>;

export const MemoryMessageStore = {
  /**
   * A new, empty store kept in this process's memory: every open is a store of its own, and
   * nothing outlives `close()`. Throws `ConfigurationError` for a key besides `storage`.
   */
  async open(
    config: MemoryStoreConfig & { storage?: typeof MEMORY_STORAGE } = {},
  ): Promise<MemoryMessageStore> {
    parseConfig(MemoryConfigSchema, config, MEMORY_STORAGE);
    return new MessageStore(new MemoryDriver());
  },
};
