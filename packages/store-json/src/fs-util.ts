import { type FileHandle, open, stat } from "node:fs/promises";
import { StorageError } from "@message-store/core";
import { ADAPTER } from "./config.js";

const HINTS: Record<string, string> = {
  ENOSPC: "disk full",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  EIO: "I/O error",
};

/** The error code of a Node fs error (`ENOENT`, …), if any. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A `StorageError` for a failed fs call: what we tried, on which path, and why. Also raised
 * outside the hooks (while opening, by `compact()`), so it names the adapter itself.
 */
export function storageError(action: string, path: string, cause: unknown): StorageError {
  const code = errorCode(cause);
  const why = code
    ? `${code}${HINTS[code] ? ` (${HINTS[code]})` : ""}`
    : String((cause as Error)?.message ?? cause);
  return new StorageError(`could not ${action} ${path}: ${why}`, { adapter: ADAPTER, cause });
}

/** Writes the whole buffer at the current position (a single write may be short). */
export async function writeFully(handle: FileHandle, data: Uint8Array): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done);
    done += bytesWritten;
  }
}

/**
 * fsyncs a directory so that a rename, creation or removal in it survives a power loss.
 * Windows cannot open directories; there the rename is as durable as the OS makes it.
 */
export async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Permission bits of an existing file (e.g. 0600 for a private store); null if it is missing. */
export async function fileMode(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch {
    return null;
  }
}

/**
 * Opens `path` with `flags`, creating it with permission bits `mode` from the first moment (a
 * file created with the umask and narrowed afterwards can be opened by another user in between,
 * who keeps the descriptor). The umask may take bits away; those are given back afterwards,
 * which only ever grants what the main file already grants. An existing file with more bits
 * than `mode` is narrowed to it. With `mode` null, the defaults (0666 minus umask) apply.
 */
export async function openWithMode(
  path: string,
  flags: string,
  mode: number | null,
): Promise<FileHandle> {
  if (mode === null) return open(path, flags);
  const handle = await open(path, flags, mode);
  try {
    const actual = (await handle.stat()).mode & 0o777;
    if (actual !== mode) await handle.chmod(mode);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return handle;
}
