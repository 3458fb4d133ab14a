import { ConnectionError, MessageStore } from "@message-store/core";
import { parseConfig, redactSecrets } from "@message-store/core/adapter";
import { createClient } from "redis";
import { z } from "zod";
import { ADAPTER, type RedisClient, RedisDriver } from "./redis-driver.js";

export const RedisConfigSchema = z.strictObject({
  url: z.string().min(1),
  /** Every key starts with it, so one server can hold several stores. */
  prefix: z.string().min(1).default("ms"),
});
export type RedisStoreConfig = z.input<typeof RedisConfigSchema>;

/** A message store over Redis: `store.driver.client` is the connection. */
export type RedisMessageStore = MessageStore<RedisDriver>;

export const RedisMessageStore = {
  /** Connects; `ConfigurationError` for a bad config (before any I/O), `ConnectionError` when unreachable. */
  async open(config: RedisStoreConfig): Promise<RedisMessageStore> {
    const { url, prefix } = parseConfig(RedisConfigSchema, config, ADAPTER);
    const client: RedisClient = createClient({ url });
    client.on("error", () => {}); // it reconnects on its own; calls fail with the error meanwhile
    try {
      await client.connect();
    } catch (error) {
      client.destroy();
      const detail = redactSecrets(error instanceof Error ? error.message : String(error));
      throw new ConnectionError(`cannot reach the Redis server: ${detail}`, { adapter: ADAPTER });
    }
    return new MessageStore(new RedisDriver(client, prefix));
  },
};
