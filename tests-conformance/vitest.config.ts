import { defineConfig } from "vitest/config";

/**
 * The suite's own tools. The suite itself runs from each adapter's test folder
 * (packages/store-json, store-postgres, store-mongo: test/conformance.test.ts); the planted-bug self-tests are in this package's test/.
 */
export default defineConfig({ test: { include: ["test/**/*.test.ts"] } });
