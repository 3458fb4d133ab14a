import { type MessageStoreError, StoreClosedError } from "@message-store/core";
import { MemoryDriver, MemoryState } from "@message-store/core/memory";
import { ADAPTER, MEMORY_PATH } from "./config.js";
import type { FilePersistence } from "./file-persistence.js";
import { errorCode, storageError } from "./fs-util.js";
import { GroupCommit } from "./group-commit.js";
import { Mutex } from "./mutex.js";

/**
 * The embedded store's driver: core's in-memory engine (`MemoryDriver`: the whole dataset in
 * memory, every capability), with every write journaled to disk (fdatasync) before it is applied
 * and before its call resolves, concurrent writes sharing one journal line (`GroupCommit`), and
 * the journal folded into one human-readable JSON file now and then (`FilePersistence`). Without
 * a persistence (`path: ":memory:"`) writes go through the same group commit, with no journal.
 */
export class JsonDriver extends MemoryDriver {
  /** The main file (absolute), or `":memory:"`. */
  readonly path: string;
  readonly #persistence: FilePersistence | null;
  #closed = false;

  constructor(persistence: FilePersistence | null) {
    const state = persistence?.memoryState ?? new MemoryState();
    const commits = new GroupCommit(state, persistence, persistence?.mutex ?? new Mutex());
    super({ name: ADAPTER, state, commit: (write) => commits.write(write) });
    this.#persistence = persistence;
    this.path = persistence?.files.main ?? MEMORY_PATH;
  }

  /**
   * Folds the journal into the main file now (it also happens on its own past
   * `compact_threshold_bytes`, and on close). A no-op for `":memory:"`. Rejects with
   * `StoreClosedError` after the store was closed and `StorageError` when the disk refuses
   * (nothing is lost: the old main file and the journal stay valid, and a later compaction
   * retries).
   */
  compact(): Promise<void> {
    // Not an operation: core neither rejects it after close() nor names the adapter in its errors.
    if (this.#closed) return Promise.reject(new StoreClosedError({ adapter: ADAPTER }));
    // Writes go on meanwhile; the persistence takes the mutex for its short steps.
    return this.#persistence?.compact() ?? Promise.resolve();
  }

  /** Waits for the writes queued before it, compacts what is journaled and releases the lock. */
  override async close(): Promise<void> {
    this.#closed = true;
    await this.#persistence?.close();
  }

  /**
   * A file-system error that no call site worded (they wrap what they expect with what they
   * were doing): a `StorageError` naming the system call, the file and the error code. Anything
   * else is left to core's default.
   */
  mapError(error: unknown): MessageStoreError | undefined {
    const { syscall, path } = (error ?? {}) as { syscall?: unknown; path?: unknown };
    if (typeof syscall !== "string" || errorCode(error) === undefined) return undefined;
    return storageError(syscall, typeof path === "string" ? path : this.path, error);
  }
}
