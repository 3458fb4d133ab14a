import { postgresForTests } from "@message-store/test-servers";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Server URL (database `postgres` or the one in MESSAGE_STORE_POSTGRES_URL). */
    postgresUrl: string;
  }
}

/**
 * One PostgreSQL server for the whole run: MESSAGE_STORE_POSTGRES_URL when set, otherwise an
 * embedded PostgreSQL 18. Each test file creates its own databases on it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await postgresForTests();
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}
