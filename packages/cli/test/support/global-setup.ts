import { mongoForTests, postgresForTests } from "@message-store/test-servers";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the test PostgreSQL server (create a database per test with createTestDatabase). */
    postgresUrl: string;
    /** URI of the test MongoDB server (use a fresh database name per test). */
    mongoUri: string;
  }
}

/** Starts one PostgreSQL and one MongoDB server for the whole run (or uses MESSAGE_STORE_*_URL). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [postgres, mongo] = await Promise.all([postgresForTests(), mongoForTests()]);
  project.provide("postgresUrl", postgres.url);
  project.provide("mongoUri", mongo.uri);
  return async () => {
    await Promise.allSettled([postgres.stop(), mongo.stop()]);
  };
}
