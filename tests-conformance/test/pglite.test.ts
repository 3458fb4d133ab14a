import { MessageStore } from "@message-store/core";
import type { PostgresMessageStore } from "@message-store/postgres";
import pg from "pg";
import { inject } from "vitest";
import { describeMessageStoreConformance } from "../src/index.js";

const dsn = inject("postgresUrl");
const schema = inject("postgresSchema");

/** Empties the adapter's tables in this run's schema (no store is open then). */
async function truncate(): Promise<void> {
  const client = new pg.Client({ connectionString: dsn });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(
      `TRUNCATE TABLE "${schema}".conversations, "${schema}".messages, "${schema}".turn_traces CASCADE`,
    );
  } catch (error) {
    // Before the first open neither the schema (3F000) nor the tables (42P01) exist yet.
    if (!["3F000", "42P01"].includes((error as { code?: string }).code ?? "")) throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The PostgreSQL adapter on PGlite with pgvector: searches rank with `<=>` (see
 * `usesPgvector`). PGlite is a single backend, so the store gets one connection.
 */
async function open(): Promise<MessageStore> {
  const store = await MessageStore.initialize({
    storage: "postgres",
    dsn,
    schema,
    pool_min: 0,
    pool_max: 1,
  });
  if (!(store as PostgresMessageStore).usesPgvector) {
    await store.close();
    throw new Error("the PGlite lane must run with pgvector, but the store did not find it");
  }
  return store;
}

describeMessageStoreConformance({ name: "postgres (PGlite, pgvector)", open, reset: truncate });
