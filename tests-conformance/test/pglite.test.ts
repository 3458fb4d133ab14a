import { MessageStore } from "@message-store/core";
import type { PostgresMessageStore } from "@message-store/postgres";
import { inject } from "vitest";
import { describeMessageStoreConformance } from "../src/index.js";
import { truncateTables } from "./postgres-lanes.js";

const dsn = inject("postgresUrl");
const schema = inject("postgresSchema");

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

describeMessageStoreConformance({
  name: "postgres (PGlite, pgvector)",
  open,
  reset: () => truncateTables(dsn, schema),
});
