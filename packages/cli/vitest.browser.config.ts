import { defineConfig } from "vitest/config";

/**
 * The browser tier: Chromium driven by playwright-core. `pnpm test` runs it after the API tests;
 * without Debian's chromium it is skipped with a printed reason (CI installs chromium first).
 */
export default defineConfig({
  test: {
    include: ["test-browser/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
