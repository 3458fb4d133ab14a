import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import "../src/index.js";
import { useDatabase, withClient } from "./helpers.js";

// A database of its own on the run's server (embedded PostgreSQL 18, or
// MESSAGE_STORE_POSTGRES_URL), dropped after the file.
const db = useDatabase("conformance");

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
  // The server is shared by the whole run (global-setup.ts), so a "restart" ends every other
  // session of this database: whatever the adapter kept in a connection is gone on reopen.
  restart: () =>
    withClient(db.url(), async (client) => {
      await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
    }),
  inspect,
});
