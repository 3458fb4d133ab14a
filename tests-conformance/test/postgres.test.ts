import { MessageStore } from "@message-store/core";
import "@message-store/postgres";
import pg from "pg";
import { inject } from "vitest";
import { describeMessageStoreConformance } from "../src/index.js";

const dsn = inject("postgresUrl");
const schema = inject("postgresSchema");

/** Empties the adapter's tables in this run's schema. */
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

describeMessageStoreConformance({
  name: "postgres",
  open: () => MessageStore.initialize({ storage: "postgres", dsn, schema }),
  reset: truncate,
});
