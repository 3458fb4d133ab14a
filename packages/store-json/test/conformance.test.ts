import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import { afterAll } from "vitest";
import "../src/index.js";

// One directory per run: reset empties it (main file, journal, lock, temp files, whatever the
// adapter keeps beside the file) while no store is open.
const dir = mkdtempSync(join(tmpdir(), "message-store-conformance-"));
const path = join(dir, "store.json");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeMessageStoreConformance({
  name: "json-file",
  open: () => MessageStore.initialize({ storage: "json", path }),
  reset: async () => {
    for (const entry of readdirSync(dir))
      rmSync(join(dir, entry), { recursive: true, force: true });
  },
  // The file is locked by the store that has it open: one instance at a time. A restart of a
  // file "backend" is the close and reopen the harness does anyway.
  concurrentInstances: false,
});

// Every open of ":memory:" is a new, empty store, so there is nothing to reset and nothing
// outlives close(): the persistence tests are reported as skipped.
describeMessageStoreConformance({
  name: "json-memory",
  open: () => MessageStore.initialize({ storage: "json", path: ":memory:" }),
  reset: async () => {},
  persistent: false,
});
