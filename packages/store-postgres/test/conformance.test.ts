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
import { conformanceHooks, endOtherSessions } from "./helpers.js";

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
  await endOtherSessions(db.url());
}

describeMessageStoreConformance({
  name: "postgres",
  open: () => MessageStore.initialize({ storage: "postgres", dsn: db.url(), pool_min: 0 }),
  ...conformanceHooks(db.url),
  restart,
});
