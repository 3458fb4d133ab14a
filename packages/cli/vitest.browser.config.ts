import { defineConfig } from "vitest/config";

/** The browser tier: Chromium driven by playwright-core (`pnpm test:browser`), not in `pnpm test`. */
export default defineConfig({
  test: {
    include: ["test-browser/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
