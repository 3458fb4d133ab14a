import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageStore } from "@message-store/core";
import "@message-store/json";
import { afterAll } from "vitest";
import { describeMessageStoreConformance } from "../src/index.js";

// One directory per run: reset empties it (main file, journal, lock, temp files, whatever the
// adapter keeps beside the file) while no store is open.
const dir = mkdtempSync(join(tmpdir(), "message-store-conformance-"));
const path = join(dir, "store.json");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeMessageStoreConformance({
  name: "json-file",
  // The file is locked by the store that has it open: one instance at a time.
  concurrentInstances: false,
  open: () => MessageStore.initialize({ storage: "json", path }),
  reset: async () => {
    for (const entry of readdirSync(dir))
      rmSync(join(dir, entry), { recursive: true, force: true });
  },
});
