import type { ResolvedSqliteConfig } from "../config.js";
import { MEMORY_PATH } from "../config.js";
import { noData } from "../errors.js";
import type { SqliteConnection } from "./sqlite-connection.js";

/** What the config opens: the library, and where (a path or URL without credentials). */
export interface Target {
  readonly library: "better-sqlite3" | "libsql";
  /** A file path, `":memory:"`, or a libSQL URL. */
  readonly address: string;
  /** For messages: the address without user, password or query (where a token may sit). */
  readonly location: string;
}

/** Where the config points, and with which library (`path`: better-sqlite3 unless told). */
export function targetOf(config: ResolvedSqliteConfig): Target {
  if (config.url !== undefined) {
    const location = config.url.replace(/\?.*$/, "").replace(/\/\/[^/@]*@/, "//");
    return { library: "libsql", address: config.url, location };
  }
  const path = config.path!;
  if (config.driver === "libsql") {
    const url = path === MEMORY_PATH ? "file::memory:" : `file:${path}`;
    return { library: "libsql", address: url, location: path };
  }
  return { library: "better-sqlite3", address: path, location: path };
}

/** The local file a target opens, or `null` (memory, a remote database). */
function fileOf(target: Target): string | null {
  if (target.library === "better-sqlite3")
    return target.address === MEMORY_PATH ? null : target.address;
  if (!target.address.startsWith("file:") || target.address.startsWith("file::memory:"))
    return null;
  return target.address.slice("file:".length).replace(/\?.*$/, "");
}

/**
 * Opens the connection (the library is imported here, on first use, so a bundle for another
 * runtime never includes it). Creates a local file's folder, or with `create: false` refuses a
 * missing file (`NotFoundError`) before the library would create it.
 */
export async function openConnection(
  target: Target,
  config: ResolvedSqliteConfig,
): Promise<SqliteConnection> {
  const file = fileOf(target);
  if (file !== null) {
    const fs = await import("node:fs/promises");
    const { dirname } = await import("node:path");
    if (!config.create) {
      const exists = await fs.stat(file).then(
        () => true,
        () => false,
      );
      if (!exists) throw noData(target.location);
    } else {
      await fs.mkdir(dirname(file), { recursive: true });
    }
  }
  if (target.library === "libsql") {
    const { openLibsql } = await import("./open-libsql.js");
    return openLibsql(target.address, config);
  }
  const { openBetterSqlite3 } = await import("./open-better-sqlite3.js");
  return openBetterSqlite3(target.address, config);
}
