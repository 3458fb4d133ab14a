/**
 * `@message-store/test-servers/bridge-setup`: the vitest global setup of the framework bridges'
 * tests. One PostgreSQL server for the package's run (`MESSAGE_STORE_POSTGRES_URL`, or an
 * embedded one), provided to the tests as `inject("postgresUrl")`.
 * @packageDocumentation
 */
import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { postgresForTests } from "./for-tests.js";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await postgresForTests();
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}
