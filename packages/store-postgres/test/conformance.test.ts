import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import {
  createTestDatabase,
  dropTestDatabase,
  POSTGRES_URL_ENV,
  type PostgresServer,
  startEmbeddedPostgres,
} from "@message-store/test-servers";
import { afterAll, beforeAll, inject } from "vitest";
import "../src/index.js";
import { withClient } from "./helpers.js";

// A database of its own, dropped after the file. Without MESSAGE_STORE_POSTGRES_URL it lives on
// an embedded server of this file's own, so that restart() really stops and starts PostgreSQL;
// on an external server restart() can only end every other session of the database.
let server: PostgresServer | null = null;
let url = "";
const db = { url: () => url };
beforeAll(async () => {
  if (!process.env[POSTGRES_URL_ENV]) server = await startEmbeddedPostgres();
  url = await createTestDatabase(server?.url ?? inject("postgresUrl"), "conformance");
});
afterAll(async () => {
  if (url) await dropTestDatabase(url).catch(() => {});
  await server?.stop();
});

async function restart(): Promise<void> {
  if (server) {
    await server.stop({ keepData: true });
    await server.start();
    return;
  }
  await withClient(db.url(), async (client) => {
    await client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
  });
}

/** Raw row counts behind the API, so the suite can see orphans a cascade left. */
function inspect(): Promise<Record<string, number>> {
  return withClient(db.url(), async (client) => {
    const { rows } = await client.query<{ c: string; m: string; t: string }>(
      `SELECT (SELECT count(*) FROM conversations) AS c,
              (SELECT count(*) FROM messages) AS m,
              (SELECT count(*) FROM turn_traces) AS t`,
    );
    const r = rows[0]!;
    return { conversations: Number(r.c), messages: Number(r.m), turnTraces: Number(r.t) };
  });
}

describeMessageStoreConformance({
  name: "postgres",
  open: () => MessageStore.initialize({ storage: "postgres", dsn: db.url(), pool_min: 0 }),
  reset: () =>
    withClient(db.url(), async (client) => {
      try {
        await client.query("TRUNCATE TABLE conversations, messages, turn_traces CASCADE");
      } catch (error) {
        // Before the first open the tables do not exist yet (42P01).
        if ((error as { code?: string }).code !== "42P01") throw error;
      }
    }),
  restart,
  inspect,
});
