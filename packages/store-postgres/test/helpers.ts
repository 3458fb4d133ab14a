import type { ConversationInput, TurnTraceInput } from "@message-store/core";
import { createTestDatabase, dropTestDatabase, traceInput } from "@message-store/test-servers";
import pg from "pg";
import { afterAll, afterEach, beforeAll, inject } from "vitest";
import { PostgresMessageStore, type PostgresStoreConfig } from "../src/index.js";

/** A fresh database for the calling test file, dropped after it. */
export function useDatabase(prefix: string): { url: () => string } {
  let url = "";
  beforeAll(async () => {
    url = await createTestDatabase(inject("postgresUrl"), prefix);
  });
  afterAll(async () => {
    if (url) await dropTestDatabase(url);
  });
  return { url: () => url };
}

/** A maker of fresh databases for the calling test file; each is dropped after its test. */
export function freshDatabases(prefix: string): () => Promise<string> {
  const created: string[] = [];
  afterEach(async () => {
    await Promise.all(created.splice(0).map(dropTestDatabase));
  });
  return async () => {
    const url = await createTestDatabase(inject("postgresUrl"), prefix);
    created.push(url);
    return url;
  };
}

/** Opens a store on `url`, owning its pool. */
export function openStore(
  url: string,
  extra: Partial<PostgresStoreConfig> = {},
): Promise<PostgresMessageStore> {
  return PostgresMessageStore.open({ dsn: url, pool_min: 0, ...extra });
}

/** Runs `fn` with a plain client on `url`. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export function conversation(
  id: string,
  userId = "u1",
  extra: Partial<ConversationInput> = {},
): ConversationInput {
  return { id, userId, createdAt: 1_000, ...extra };
}

export { messageInput as message } from "@message-store/test-servers";

export function trace(
  id: string,
  messageId: string,
  conversationId: string,
  extra: Partial<TurnTraceInput> = {},
): TurnTraceInput {
  return traceInput(id, messageId, conversationId, 5_000, { totalLatencyMs: 250, ...extra });
}
