import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConfigurationError,
  CorruptDataError,
  MessageStore,
  NotFoundError,
  StoreLockedError,
} from "@message-store/core";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteMessageStore } from "../src/index.js";
import { RECORD_TABLES } from "../src/sql/columns.js";
import { MIGRATIONS_TABLE, SCHEMA_VERSION } from "../src/sql/migrations.js";

const dir = mkdtempSync(join(tmpdir(), "message-store-sqlite-schema-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const newPath = () => join(dir, `db${n++}`, "agent.db");

function raw<T>(path: string, work: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

describe("sqlite schema", () => {
  it("the migrated tables have exactly the columns columns.ts writes", async () => {
    const path = newPath();
    await (await SqliteMessageStore.open({ path })).close();
    raw(path, (db) => {
      for (const table of RECORD_TABLES) {
        const columns = (db.pragma(`table_info(${table.name})`) as { name: string }[]).map(
          (c) => c.name,
        );
        expect(columns.sort(), table.name).toEqual(Object.keys(table.columns).sort());
      }
    });
  });

  it("opens a new file in WAL mode with the chosen synchronous, and records each step once", async () => {
    const path = newPath();
    const store = await SqliteMessageStore.open({ path, synchronous: "NORMAL" });
    await store.close();
    await (await MessageStore.initialize({ storage: "sqlite", path })).close();
    raw(path, (db) => {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const steps = db.prepare(`SELECT version FROM ${MIGRATIONS_TABLE}`).all();
      expect(steps).toEqual([{ version: SCHEMA_VERSION }]);
    });
  });

  it("refuses a database of a newer schema version, and one whose recorded step differs", async () => {
    const newer = newPath();
    await (await SqliteMessageStore.open({ path: newer })).close();
    raw(newer, (db) =>
      db
        .prepare(`INSERT INTO ${MIGRATIONS_TABLE} VALUES (?, 'from the future', 0)`)
        .run(SCHEMA_VERSION + 1),
    );
    await expect(SqliteMessageStore.open({ path: newer })).rejects.toThrow(ConfigurationError);

    const renamed = newPath();
    await (await SqliteMessageStore.open({ path: renamed })).close();
    raw(renamed, (db) =>
      db.prepare(`UPDATE ${MIGRATIONS_TABLE} SET name = 'something else'`).run(),
    );
    await expect(SqliteMessageStore.open({ path: renamed })).rejects.toThrow(CorruptDataError);
  });

  it("a write waits for another connection's lock, and past busy_timeout_ms fails typed with nothing stored", async () => {
    const path = newPath();
    const store = await SqliteMessageStore.open({ path, busy_timeout_ms: 200 });
    const holder = new Database(path);
    try {
      holder.prepare("BEGIN IMMEDIATE").run();
      const started = Date.now();
      await expect(store.storeConversation({ id: "c1", userId: "u1" })).rejects.toThrow(
        StoreLockedError,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      // Released in time: the write waits and succeeds.
      setTimeout(() => holder.prepare("COMMIT").run(), 50);
      holder.prepare("SELECT 1").get();
      await expect(store.storeConversation({ id: "c2", userId: "u1" })).resolves.toMatchObject({
        id: "c2",
      });
      expect(await store.getConversation("c1")).toBeNull();
    } finally {
      if (holder.inTransaction) holder.prepare("ROLLBACK").run();
      holder.close();
      await store.close();
    }
  });

  it("a file that is not a SQLite database is a CorruptDataError, and the file is left alone", async () => {
    const path = join(dir, "not-a-db");
    const { writeFileSync, readFileSync } = await import("node:fs");
    writeFileSync(path, "hello, this is not sqlite".repeat(100));
    await expect(SqliteMessageStore.open({ path })).rejects.toThrow(CorruptDataError);
    expect(readFileSync(path, "utf8")).toBe("hello, this is not sqlite".repeat(100));
  });

  it("a bad config is a ConfigurationError before any I/O", async () => {
    await expect(SqliteMessageStore.open({} as never)).rejects.toThrow(ConfigurationError);
    await expect(
      SqliteMessageStore.open({ path: newPath(), url: "file:x.db" } as never),
    ).rejects.toThrow(ConfigurationError);
    await expect(
      SqliteMessageStore.open({ path: newPath(), synchronous: "OFF" } as never),
    ).rejects.toThrow(ConfigurationError);
  });
});

describe("sqlite create: false", () => {
  it("a missing file or one without the store's tables is a NotFoundError, and nothing is created", async () => {
    const { existsSync } = await import("node:fs");
    const missing = newPath();
    await expect(SqliteMessageStore.open({ path: missing, create: false })).rejects.toThrow(
      NotFoundError,
    );
    expect(existsSync(missing)).toBe(false);
    const empty = join(dir, "empty.db");
    raw(empty, (db) => db.exec("CREATE TABLE other (x)"));
    await expect(SqliteMessageStore.open({ path: empty, create: false })).rejects.toThrow(
      NotFoundError,
    );
    raw(empty, (db) =>
      expect(db.prepare("SELECT name FROM sqlite_master").all()).toEqual([{ name: "other" }]),
    );
    const existing = newPath();
    const store = await SqliteMessageStore.open({ path: existing });
    await store.storeConversation({ id: "c1", userId: "u1" });
    await store.close();
    const reader = await SqliteMessageStore.open({ path: existing, create: false });
    expect(await reader.getConversation("c1")).toMatchObject({ id: "c1" });
    await reader.close();
  });
});
