import { MessageStore } from "@message-store/core";
import "@message-store/postgres";
import pg from "pg";
import { inject } from "vitest";
import { describeMessageStoreConformance } from "../src/index.js";

const dsn = inject("postgresUrl");
const schema = inject("postgresSchema");

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: dsn });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Raw row counts behind the API, so the suite can see orphans a cascade left. */
function inspect(): Promise<Record<string, number>> {
  return withClient(async (client) => {
    const { rows } = await client.query<{ c: string; m: string; t: string }>(
      `SELECT (SELECT count(*) FROM "${schema}".conversations) AS c,
              (SELECT count(*) FROM "${schema}".messages) AS m,
              (SELECT count(*) FROM "${schema}".turn_traces) AS t`,
    );
    const r = rows[0]!;
    return { conversations: Number(r.c), messages: Number(r.m), turnTraces: Number(r.t) };
  });
}

/**
 * The server is started once per run in global-setup.ts (another process), so a restart here
 * ends every other session of the database instead: whatever the adapter kept in a connection
 * (prepared statements, session state, cached sequences) is gone when it reopens.
 */
function restart(): Promise<void> {
  return withClient(async (client) => {
    await client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
  });
}

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
  restart,
  inspect,
});
