import { afterEach, describe, expect, it } from "vitest";
import { mongoForTests, postgresForTests } from "../src/index.js";

const realPlatform = Object.getOwnPropertyDescriptor(process, "platform")!;
afterEach(() => {
  Object.defineProperty(process, "platform", realPlatform);
});

describe("on a platform without the built-in binaries", () => {
  it.each<[string, () => Promise<unknown>, string]>([
    ["PostgreSQL", () => postgresForTests(), "MESSAGE_STORE_POSTGRES_URL"],
    ["MongoDB", () => mongoForTests(), "MESSAGE_STORE_MONGODB_URL"],
  ])("%s says which variable points the suites at your own server", async (_, start, env) => {
    const saved = process.env[env];
    delete process.env[env];
    Object.defineProperty(process, "platform", { ...realPlatform, value: "darwin" });
    try {
      const error = await start().then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toContain("Linux x64 binary");
      expect(error?.message).toContain(`${env}=`);
      expect(error?.message).toContain("darwin-");
    } finally {
      if (saved !== undefined) process.env[env] = saved;
    }
  });
});
