import { redisForTests } from "@message-store/test-servers";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Redis under test: a throwaway redis-server, or `MESSAGE_STORE_REDIS_URL`. */
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await redisForTests();
  project.provide("redisUrl", redis.url);
  return () => redis.stop();
}
