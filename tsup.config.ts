import { defineConfig } from "tsup";

/**
 * The one build config every package uses (`tsup --config ../../tsup.config.ts`).
 * ESM only, with declarations; dependencies stay external.
 */
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: true,
  sourcemap: true,
  clean: true,
  // A package with several entry points (core: "." and "./adapter") must share one copy of each
  // module between them, or `MessageStore` would exist twice.
  splitting: true,
  treeshake: true,
  // Keep `node:` on built-in imports: a bundler for another runtime (a Worker) then knows them
  // for Node's (`--external:node:*`) instead of looking for packages named `fs` or `path`.
  removeNodeProtocol: false,
});
