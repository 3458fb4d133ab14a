import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import { type PgliteServer, startPgliteServer } from "@message-store/test-servers";
import { afterAll, beforeAll } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { withClient } from "./helpers.js";

// The pgvector lane: PGlite (PostgreSQL in WASM) with pgvector 0.8, served over the wire
// protocol, so searches rank with `<=>` (see `usesPgvector`). PGlite is a single backend, so
// the store gets one connection.
let server: PgliteServer | null = null;
beforeAll(async () => {
  server = await startPgliteServer();
});
afterAll(async () => {
  await server?.stop();
});

async function open(): Promise<MessageStore> {
  const store = await MessageStore.initialize({
    storage: "postgres",
    dsn: server!.url,
    pool_min: 0,
    pool_max: 1,
    // PGlite's socket server hands its one backend session to every client connection, so a
    // statement prepared on one connection still exists for the next: like a transaction-mode
    // pooler, it needs unnamed statements (README, "prepared_statements").
    prepared_statements: false,
  });
  if (!(store as PostgresMessageStore).driver.usesPgvector) {
    await store.close();
    throw new Error("the PGlite lane must run with pgvector, but the store did not find it");
  }
  return store;
}

describeMessageStoreConformance({
  name: "postgres (PGlite, pgvector)",
  open,
  reset: () =>
    withClient(server!.url, async (client) => {
      try {
        await client.query("TRUNCATE TABLE conversations, messages, turn_traces CASCADE");
      } catch (error) {
        if ((error as { code?: string }).code !== "42P01") throw error;
      }
    }),
});
