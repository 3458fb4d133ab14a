import { mongoForTests, startJongodb } from "@message-store/test-servers";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The server under test: jongodb (replica set) or `MESSAGE_STORE_MONGODB_URL`. */
    mongoUri: string;
    /** True when `mongoUri` is a real server given by `MESSAGE_STORE_MONGODB_URL`. */
    externalMongo: boolean;
    /** A standalone jongodb (no transactions), for the adapter's transaction-less paths. */
    standaloneUri: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const main = await mongoForTests();
  const standalone = await startJongodb({ topology: "standalone" }).catch(async (error) => {
    await main.stop();
    throw error;
  });
  project.provide("mongoUri", main.uri);
  project.provide("externalMongo", main.server === null);
  project.provide("standaloneUri", standalone.uri);
  return async () => {
    await Promise.allSettled([main.stop(), standalone.stop()]);
  };
}
