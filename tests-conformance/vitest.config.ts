import { defineConfig } from "vitest/config";

const shared = { testTimeout: 30_000, hookTimeout: 120_000 };

/**
 * One project per backend, so `vitest run --project json` needs no database server. The
 * database projects start their server once in `test/global-setup.ts`. Files run one at a time.
 */
export default defineConfig({
  test: {
    ...shared,
    fileParallelism: false,
    projects: [
      { test: { ...shared, name: "json", include: ["test/json-*.test.ts"] } },
      {
        test: {
          ...shared,
          name: "postgres",
          include: ["test/postgres.test.ts"],
          globalSetup: ["test/global-setup.ts"],
        },
      },
      {
        test: {
          ...shared,
          name: "pglite",
          include: ["test/pglite.test.ts"],
          globalSetup: ["test/global-setup.ts"],
        },
      },
      {
        test: {
          ...shared,
          name: "mongodb",
          include: ["test/mongodb.test.ts"],
          globalSetup: ["test/global-setup.ts"],
        },
      },
    ],
  },
});
