import { defineConfig } from "vitest/config";

/**
 * The bridge's tests run against every AI SDK major of its peer range: ai 7 (the `ai`
 * devDependency) and ai 6 (`ai-v6`, what `npm install ai` gives on Node 20) on JSON and
 * PostgreSQL, and ai 5 (`ai-v5`) on JSON; the older majors are swapped in for `ai` in the bridge
 * and the tests alike.
 */
const olderMajor = (major: 5 | 6) => ({
  extends: true as const,
  test: {
    name: `ai@${major}`,
    env: { AI_MAJOR: String(major) },
    // Once, in the ai@7 project: the CLI, and the README compiled against every major.
    exclude: [
      "test/cli-show.test.ts",
      "test/readme-examples.test.ts",
      // The telemetry integration is ai 7's interface.
      "test/telemetry*.test.ts",
    ],
  },
  resolve: {
    alias: [
      { find: /^ai$/, replacement: `ai-v${major}` },
      { find: /^ai\/test$/, replacement: `ai-v${major}/test` },
    ],
  },
});

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    isolate: false,
    hookTimeout: 120_000,
    globalSetup: ["@message-store/test-servers/bridge-setup"],
    projects: [
      {
        extends: true,
        test: { name: "ai@7", env: { AI_MAJOR: "7" } },
      },
      olderMajor(6),
      olderMajor(5),
    ],
  },
});
