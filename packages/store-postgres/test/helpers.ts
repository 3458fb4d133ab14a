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

/**
 * The conformance suite's `reset` (empty the three tables, if they exist yet) and `inspect` (raw
 * row counts behind the API, so the suite can see orphans a cascade left) on a database.
 */
export function conformanceHooks(url: () => string) {
  return {
    reset: () =>
      withClient(url(), async (client) => {
        try {
          await client.query("TRUNCATE TABLE conversations, messages, turn_traces CASCADE");
        } catch (error) {
          // Before the first open the tables do not exist yet (42P01).
          if ((error as { code?: string }).code !== "42P01") throw error;
        }
      }),
    inspect: () =>
      withClient(url(), async (client) => {
        const { rows } = await client.query<{ c: string; m: string; t: string }>(
          `SELECT (SELECT count(*) FROM conversations) AS c,
                  (SELECT count(*) FROM messages) AS m,
                  (SELECT count(*) FROM turn_traces) AS t`,
        );
        const r = rows[0]!;
        return { conversations: Number(r.c), messages: Number(r.m), turnTraces: Number(r.t) };
      }),
  };
}

/** Ends every other session of `url`'s database: a restart as an external server allows it. */
export function endOtherSessions(url: string): Promise<void> {
  return withClient(url, async (client) => {
    await client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
  });
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
