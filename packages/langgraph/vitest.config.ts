import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // LangGraph's checkpointer validation suite (`validate()`) uses vitest's globals.
    globals: true,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
