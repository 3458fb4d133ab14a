import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageStore, newId } from "@message-store/core";
import "@message-store/json";
import "@message-store/mongodb";
import "@message-store/postgres";
import { createTestDatabase, dropTestDatabase } from "@message-store/test-servers";
import { inject } from "vitest";

export type Backend = "json" | "postgres" | "mongodb";
export const BACKENDS: Backend[] = ["json", "postgres", "mongodb"];

/** Where a backend keeps one test file's stores, and how to open them. */
export interface StoreHome {
  readonly backend: Backend;
  /** The JSON file or the PostgreSQL DSN. */
  readonly where: string;
  /** The same store as the CLI's `--store` names it. */
  readonly spec: string;
  open(): Promise<MessageStore>;
  remove(): Promise<void>;
}

/** A new JSON file in a temporary folder, or a new PostgreSQL database. */
export async function storeHome(backend: Backend, name: string): Promise<StoreHome> {
  if (backend === "json") {
    const dir = mkdtempSync(join(tmpdir(), "message-store-langgraph-"));
    const path = join(dir, "store.json");
    return {
      backend,
      where: path,
      spec: `json:${path}`,
      open: () => MessageStore.initialize({ storage: "json", path }),
      remove: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (backend === "mongodb") {
    // The database in the URI's path, as the CLI's `--store mongodb:<uri>` reads it.
    const url = new URL(inject("mongoUri"));
    const db = `${name}_${newId().replaceAll("-", "")}`;
    url.pathname = `/${db}`;
    const uri = url.toString();
    return {
      backend,
      where: uri,
      spec: `mongodb:${uri}`,
      open: () => MessageStore.initialize({ storage: "mongodb", uri, db }),
      // jongodb forgets everything when it stops; a real server keeps the test database.
      remove: async () => {},
    };
  }
  const url = await createTestDatabase(inject("postgresUrl"), name);
  return {
    backend,
    where: url,
    spec: `postgres:${url}`,
    open: () => MessageStore.initialize({ storage: "postgres", dsn: url, pool_min: 0 }),
    remove: () => dropTestDatabase(url),
  };
}
