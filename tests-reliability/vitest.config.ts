import { defineConfig } from "vitest/config";

/**
 * The reliability tier: real kills, outages, full disks and load. Every file starts and kills its
 * own servers, so files run one at a time (they would otherwise fight over the 2 CPUs and make
 * timing bounds meaningless).
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
