import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["@message-store/test-servers/bridge-setup"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
