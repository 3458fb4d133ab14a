import { defineConfig } from "tsup";
import shared from "../../tsup.config.js";

export default defineConfig({
  ...(shared as object),
  entry: { index: "src/index.ts", adapter: "src/adapter.ts", memory: "src/memory.ts" },
});
