import {
  CorruptDataError,
  type MessageStoreError,
  NotFoundError,
  StorageError,
  StoreLockedError,
} from "@message-store/core";
import { ADAPTER } from "./config.js";

/**
 * SQLite's result codes (better-sqlite3's and libSQL's `code`) as core's errors: the write lock
 * still held by another connection after `busy_timeout_ms` → `StoreLockedError`; a damaged file
 * or one that is no database → `CorruptDataError`; a full disk, an I/O error or a file that
 * cannot be opened → `StorageError`. `undefined` for the rest (core's default applies).
 * `location` never holds credentials.
 */
export function sqliteError(error: unknown, location: string): MessageStoreError | undefined {
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  const message = error instanceof Error ? error.message : String(error);
  const options = { adapter: ADAPTER, cause: error };
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
    return new StoreLockedError(
      `the database ${location} is locked by another connection (waited busy_timeout_ms): ${message}`,
      options,
    );
  if (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB"))
    return new CorruptDataError(message, location, options);
  if (
    code.startsWith("SQLITE_FULL") ||
    code.startsWith("SQLITE_IOERR") ||
    code.startsWith("SQLITE_CANTOPEN")
  )
    return new StorageError(`${location}: ${message}`, options);
  return undefined;
}

/** The error of an open with `create: false` where there is no store. */
export const noData = (location: string): NotFoundError =>
  new NotFoundError(`no message-store data at ${location}`, { adapter: ADAPTER });
