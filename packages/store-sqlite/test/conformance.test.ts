import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import Database from "better-sqlite3";
import { afterAll } from "vitest";
import "../src/index.js";

// One directory per run: reset removes the database with its -wal and -shm files.
const dir = mkdtempSync(join(tmpdir(), "message-store-sqlite-conformance-"));
const path = join(dir, "store.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Raw row counts, read behind the API: a cascade or erasure must leave no row behind. */
function inspect(): Promise<Record<string, number>> {
  const db = new Database(path, { readonly: true });
  try {
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return Promise.resolve({
      conversations: count("conversations"),
      messages: count("messages"),
      turnTraces: count("turn_traces"),
    });
  } finally {
    db.close();
  }
}

describeMessageStoreConformance({
  name: "sqlite (better-sqlite3)",
  open: () => MessageStore.initialize({ storage: "sqlite", path }),
  reset: async () => {
    for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { force: true });
  },
  inspect,
});

describeMessageStoreConformance({
  name: "sqlite (:memory:)",
  open: () => MessageStore.initialize({ storage: "sqlite", path: ":memory:" }),
  reset: async () => {},
  persistent: false,
});
