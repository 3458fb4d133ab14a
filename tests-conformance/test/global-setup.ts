import { randomBytes } from "node:crypto";
import { mongoForTests, postgresForTests, startPgliteServer } from "@message-store/test-servers";
import pg from "pg";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
    postgresSchema: string;
    mongoUri: string;
    mongoDb: string;
  }
}

const runId = `conformance_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Starts the database the project needs, once per run: PostgreSQL for project "postgres"
 * (`MESSAGE_STORE_POSTGRES_URL` or embedded PostgreSQL 18), MongoDB for project "mongodb"
 * (`MESSAGE_STORE_MONGODB_URL` or a standalone jongodb). Each run gets its own schema / database name, so an
 * external server is shared safely; the schema is dropped at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (project.name === "postgres") {
    const server = await postgresForTests();
    project.provide("postgresUrl", server.url);
    project.provide("postgresSchema", runId);
    return async () => {
      await sql(server.url, `DROP SCHEMA IF EXISTS "${runId}" CASCADE`).catch(() => {});
      await server.stop();
    };
  }
  if (project.name === "pglite") {
    // PGlite (PostgreSQL 18 in WASM) with pgvector 0.8, over the wire protocol: the pgvector lane.
    const server = await startPgliteServer();
    project.provide("postgresUrl", server.url);
    project.provide("postgresSchema", runId);
    return () => server.stop();
  }
  if (project.name === "mongodb") {
    // jongodb's replica-set transactions do not detect write conflicts and can lose concurrent
    // commits, which the concurrency cases would catch as lost writes; its standalone profile is
    // faithful. The adapter's transactional paths are tested in packages/store-mongo and against
    // a real replica set given by MESSAGE_STORE_MONGODB_URL.
    const server = await mongoForTests({ topology: "standalone" });
    project.provide("mongoUri", server.uri);
    project.provide("mongoDb", runId);
    return () => server.stop();
  }
  return async () => {};
}
