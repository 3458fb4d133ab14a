import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Each example is compiled and imported on first run; on a loaded 2-core machine that alone
    // can pass vitest's 5 s default. The SDK imports are warmed in a hook (see the test).
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
