import { isUtf8 } from "node:buffer";
import { type FileHandle, open, readFile, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { errorCode, openWithMode, storageError, syncDirectory, writeFully } from "./fs-util.js";
import { describeSyntaxError } from "./json-text.js";
import { corruptData } from "./record-schemas.js";

/** One committed journal line, parsed as JSON (not yet checked against the models). */
export interface JournalLine {
  /** 1-based line number, for error messages. */
  lineNumber: number;
  /** Byte offset of the line's start. */
  offset: number;
  value: unknown;
}

/** What is in a journal file: its committed lines and how many bytes they span. */
export interface JournalContents {
  lines: JournalLine[];
  /** Bytes of the committed lines; anything after them is a torn, unacknowledged append. */
  committedBytes: number;
  totalBytes: number;
}

/**
 * Reads a journal. A line counts only once its newline is there: an append is acknowledged
 * after it (and its newline) are on disk, so a last line without one, or a last line that does
 * not parse, is a torn append from a crash and is ignored. A bad line before the last one is
 * corruption: `CorruptDataError` naming the line. Resolves `null` when there is no journal.
 */
export async function readJournal(path: string): Promise<JournalContents | null> {
  let buffer: Buffer;
  try {
    buffer = await readFile(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw storageError("read the journal", path, error);
  }
  const lines: JournalLine[] = [];
  let offset = 0;
  for (let lineNumber = 1; offset < buffer.length; lineNumber++) {
    const newline = buffer.indexOf(0x0a, offset);
    if (newline === -1) break;
    const isLast = newline === buffer.length - 1;
    const bytes = buffer.subarray(offset, newline);
    let value: unknown;
    let problem: string | null = null;
    if (!isUtf8(bytes)) {
      problem = "the line is not valid UTF-8";
    } else {
      const text = bytes.toString("utf8");
      try {
        value = JSON.parse(text);
      } catch {
        const e = describeSyntaxError(text);
        problem = `the line is not valid JSON at column ${e.column}: ${e.problem}`;
      }
    }
    if (problem !== null) {
      if (isLast) break;
      throw corruptData(
        `journal ${path} is corrupt at line ${lineNumber} (byte ${offset}): ${problem}`,
        `${path}:${lineNumber}`,
      );
    }
    lines.push({ lineNumber, offset, value });
    offset = newline + 1;
  }
  return { lines, committedBytes: offset, totalBytes: buffer.length };
}

/** Largest append buffer kept for reuse; a longer line gets a buffer of its own. */
const KEPT_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * The append-only journal: one JSON line per committed operation, written and fdatasync'ed
 * before the operation becomes visible. A failed append is cut off again, so the file never
 * keeps a partial line that a later append would bury in the middle.
 */
export class Journal {
  readonly path: string;
  #handle: FileHandle;
  #size: number;
  #broken = false;
  #closed = false;
  /** Reused by every append (see `#encode`). */
  #buffer: Buffer | null = null;

  private constructor(path: string, handle: FileHandle, size: number) {
    this.path = path;
    this.#handle = handle;
    this.#size = size;
  }

  /**
   * Opens the journal for appending, creating it if needed with permission bits `mode` (those of
   * the main file: it holds the same data; see `openWithMode`), after cutting off a torn tail.
   * Only call once the contents were read and validated: this writes.
   */
  static async open(
    path: string,
    contents: JournalContents | null,
    mode: number | null,
  ): Promise<Journal> {
    let handle: FileHandle;
    try {
      handle = await openWithMode(path, "a", mode);
    } catch (error) {
      throw storageError("open the journal", path, error);
    }
    const journal = new Journal(path, handle, contents?.totalBytes ?? 0);
    try {
      if (contents === null) {
        await syncDirectory(dirname(path));
      } else if (contents.committedBytes < contents.totalBytes) {
        await journal.#truncate(contents.committedBytes);
      }
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw storageError("prepare the journal", path, error);
    }
    return journal;
  }

  /** Bytes of committed lines. */
  get size(): number {
    return this.#size;
  }

  /** True when a failed append could not be cut off: the next append must start afresh. */
  get broken(): boolean {
    return this.#broken;
  }

  /**
   * Appends one line, given whole or as the texts that make it up (see `encodeGroup`), and waits
   * until it is on disk. Rejects with `StorageError`. Appends must not overlap (the store's mutex
   * serialises them): they share one buffer.
   */
  async append(line: string | readonly string[]): Promise<void> {
    const bytes = this.#encode(typeof line === "string" ? [line] : line);
    try {
      await writeFully(this.#handle, bytes);
      await this.#handle.datasync();
      this.#size += bytes.length;
    } catch (error) {
      await this.#truncate(this.#size).catch(() => {
        this.#broken = true;
      });
      throw storageError("append to the journal", this.path, error);
    }
  }

  /**
   * The line's UTF-8 bytes and its newline, encoded part by part into a buffer that is kept for
   * the next append (up to {@link KEPT_BUFFER_BYTES}): no joined string, no fresh allocation per
   * write.
   */
  #encode(parts: readonly string[]): Buffer {
    let size = 1;
    for (const part of parts) size += Buffer.byteLength(part, "utf8");
    let buffer = this.#buffer;
    if (buffer === null || buffer.length < size) {
      buffer = Buffer.allocUnsafeSlow(size);
      if (size <= KEPT_BUFFER_BYTES) this.#buffer = buffer;
    }
    let at = 0;
    for (const part of parts) at += buffer.write(part, at, "utf8");
    buffer[at] = 0x0a;
    return buffer.subarray(0, size);
  }

  /** Empties the journal (after compaction folded it into the main file). */
  async reset(): Promise<void> {
    try {
      await this.#truncate(0);
    } catch (error) {
      throw storageError("empty the journal", this.path, error);
    }
  }

  /**
   * Keeps only the bytes from `offset` on (the lines a compaction did not fold into the main
   * file): they are copied to `<path>.tmp`, created with permission bits `mode`, synced and
   * renamed over the journal, so a crash leaves either the old journal or the new one, both
   * valid. Only call while no append runs. Rejects with `StorageError`.
   */
  async dropBefore(offset: number, mode: number | null): Promise<void> {
    const tmp = `${this.path}.tmp`;
    const tail = Buffer.alloc(this.#size - offset);
    let handle: FileHandle | null = null;
    try {
      const reader = await open(this.path, "r");
      try {
        let read = 0;
        while (read < tail.length) {
          const { bytesRead } = await reader.read(tail, read, tail.length - read, offset + read);
          if (bytesRead === 0) throw new Error("the journal is shorter than its committed size");
          read += bytesRead;
        }
      } finally {
        await reader.close();
      }
      await unlink(tmp).catch(() => undefined);
      // Opened for appending: after the rename this handle is the journal's.
      handle = await openWithMode(tmp, "ax", mode);
      await writeFully(handle, tail);
      await handle.sync();
      await rename(tmp, this.path);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
      throw storageError("drop the folded lines of the journal", this.path, error);
    }
    const old = this.#handle;
    this.#handle = handle;
    this.#size = tail.length;
    this.#broken = false;
    await old.close().catch(() => undefined);
    try {
      await syncDirectory(dirname(this.path));
    } catch (error) {
      throw storageError("sync the directory of", this.path, error);
    }
  }

  /** Closes the file; safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#handle.close();
  }

  async #truncate(size: number): Promise<void> {
    await this.#handle.truncate(size);
    await this.#handle.datasync();
    this.#size = size;
    this.#broken = false;
  }
}
