import { defineConfig } from "vitest/config";

// Packing and installing take a while; the files share the packed tarballs (global setup).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
