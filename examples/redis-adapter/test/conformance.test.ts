import { randomBytes } from "node:crypto";
import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import { createClient } from "redis";
import { inject } from "vitest";
import "../src/index.js";

// A real Redis server: a throwaway one the global setup started, or MESSAGE_STORE_REDIS_URL.
const url = inject("redisUrl");
// A prefix of its own per run, so a shared server is safe.
const prefix = `ms-conformance-${randomBytes(4).toString("hex")}`;

async function withClient<T>(
  work: (client: ReturnType<typeof createClient>) => Promise<T>,
): Promise<T> {
  const client = createClient({ url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

async function keys(pattern: string): Promise<string[]> {
  return withClient(async (client) => {
    const found: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: pattern, COUNT: 1000 }))
      found.push(...batch);
    return found;
  });
}

describeMessageStoreConformance({
  name: "redis (worked example)",
  open: () => MessageStore.initialize({ storage: "redis-example", url, prefix }),
  reset: async () => {
    const all = await keys(`${prefix}:*`);
    if (all.length > 0) await withClient((client) => client.del(all));
  },
  // Raw key counts: a cascade or an erasure must leave no record key behind.
  inspect: async () => ({
    conversations: (await keys(`${prefix}:c:*`)).length,
    messages: (await keys(`${prefix}:m:*`)).length,
    turnTraces: (await keys(`${prefix}:t:*`)).length,
  }),
});
