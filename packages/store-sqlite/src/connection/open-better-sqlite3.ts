import type { ResolvedSqliteConfig } from "../config.js";
import { MEMORY_PATH } from "../config.js";
import { BetterSqlite3Connection } from "./better-sqlite3-connection.js";

/**
 * Opens a file with better-sqlite3 (loaded on first use, so bundles for other runtimes never
 * see it): WAL, `synchronous`, `busy_timeout` and foreign
 * keys on the connection.
 */
export async function openBetterSqlite3(
  path: string,
  config: ResolvedSqliteConfig,
): Promise<BetterSqlite3Connection> {
  const { default: Database } = await import("better-sqlite3");
  // The connection waits for locks itself, without blocking the event loop.
  const db = new Database(path, { timeout: 0, fileMustExist: !config.create });
  try {
    // Switching a new file to WAL takes its lock for a moment: wait for it here, where nothing
    // of this process can hold it across an await.
    db.pragma(`busy_timeout = ${config.busy_timeout_ms}`);
    if (path !== MEMORY_PATH) db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 0");
    db.pragma(`synchronous = ${config.synchronous}`);
    db.pragma("foreign_keys = ON");
  } catch (error) {
    db.close();
    throw error;
  }
  return new BetterSqlite3Connection(db, config.busy_timeout_ms);
}
