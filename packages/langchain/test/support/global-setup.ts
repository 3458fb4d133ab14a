import { postgresForTests } from "@message-store/test-servers";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** One PostgreSQL server for the package's run (MESSAGE_STORE_POSTGRES_URL or embedded 18). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await postgresForTests();
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}
