import { MessageStore } from "@message-store/core";
import {
  createTestDatabase,
  MONGODB_URL_ENV,
  POSTGRES_URL_ENV,
  startEmbeddedPostgres,
  startJongodb,
} from "@message-store/test-servers";
import { describe, it } from "vitest";
import { jongodbUri, uniqueDbName } from "./support/mongo.js";
import { sharedWriters } from "./support/shared-writers.js";

/*
 * These tests do not kill their servers, so a real server given by MESSAGE_STORE_POSTGRES_URL or
 * MESSAGE_STORE_MONGODB_URL is used when set; otherwise an embedded PostgreSQL or jongodb.
 *
 * jongodb's upserts cost time proportional to the collection's size (measured with the raw
 * driver: ~1 ms at 0 documents, ~40 ms at 2,000, ~380 ms at 4,000 with a unique secondary
 * index), so 8 × 500 messages would take 5–10 minutes there. On jongodb each writer therefore
 * writes RELIABILITY_JONGODB_PER_WRITER messages (default 160; a multiple of 4, the number of conversations); a real MongoDB gets the full 500.
 */
const JONGODB_PER_WRITER = Number(process.env.RELIABILITY_JONGODB_PER_WRITER ?? 160);
describe("concurrency", () => {
  it("postgres: 2 instances, 8 writers × 500 messages into shared conversations: nothing lost, one order", async () => {
    const external = process.env[POSTGRES_URL_ENV];
    const server = external ? null : await startEmbeddedPostgres();
    try {
      const dsn = await createTestDatabase(external ?? server!.url, "concurrency");
      const open = () => MessageStore.initialize({ storage: "postgres", dsn, pool_max: 4 });
      const [a, b] = [await open(), await open()];
      try {
        console.info(`concurrency (postgres): ${await sharedWriters(a, b, "pg")}`);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    } finally {
      await server?.stop();
    }
  });

  it("mongodb: 2 instances, 8 writers × 500 messages (160 on jongodb) into shared conversations: nothing lost, one order", async () => {
    const external = process.env[MONGODB_URL_ENV];
    const server = external ? null : await startJongodb();
    try {
      const uri = external ?? jongodbUri(server!.uri);
      const db = uniqueDbName("concurrency");
      const open = () => MessageStore.initialize({ storage: "mongodb", uri, db });
      const [a, b] = [await open(), await open()];
      try {
        console.info(
          `concurrency (mongodb${external ? "" : ", jongodb"}): ${await sharedWriters(a, b, "mg", external ? 500 : JONGODB_PER_WRITER)}`,
        );
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    } finally {
      await server?.stop();
    }
  });
});
