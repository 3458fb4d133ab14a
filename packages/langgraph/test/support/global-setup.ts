import { mongoForTests, postgresForTests } from "@message-store/test-servers";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
    mongoUri: string;
  }
}

/**
 * One PostgreSQL server (MESSAGE_STORE_POSTGRES_URL or embedded) and one MongoDB server
 * (MESSAGE_STORE_MONGODB_URL or jongodb, a replica set: transactions) for the package's run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await postgresForTests();
  const mongo = await mongoForTests().catch(async (error) => {
    await postgres.stop();
    throw error;
  });
  project.provide("postgresUrl", postgres.url);
  project.provide("mongoUri", mongo.uri);
  return async () => {
    await Promise.allSettled([postgres.stop(), mongo.stop()]);
  };
}
