import { rename, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { StoreLockedError } from "@message-store/core";
import { MemoryState, type Operation } from "@message-store/core/memory";
import { ADAPTER, DEFAULT_FILE_MODE } from "./config.js";
import { FileLock } from "./file-lock.js";
import { fileMode, storageError, syncDirectory } from "./fs-util.js";
import { Journal, readJournal } from "./journal.js";
import { replay } from "./journal-replay.js";
import { Mutex } from "./mutex.js";
import { encodeGenerationMark, encodeGroup } from "./operation-codec.js";
import { processWide } from "./process-wide.js";
import { readSnapshot, writeSnapshotTemp } from "./snapshot-file.js";
import { captureView } from "./snapshot-view.js";
import { resolveFiles, type StoreFiles } from "./store-files.js";

/**
 * When the journal is folded into the main file: past `bytes`, or — when `growWithMainFile`
 * (no `compact_threshold_bytes` configured) — past half the main file's size if that is larger.
 * A compaction rewrites the whole file, so a fixed threshold made writing N messages cost
 * O(N²) bytes of compaction; a threshold proportional to the file keeps the cost per written
 * byte constant (each compaction writes at most 3 bytes per journal byte), and the journal to
 * replay on open at most half the main file.
 */
export interface CompactionPolicy {
  bytes: number;
  growWithMainFile: boolean;
  /** Whether a missing store may be created (see `JsonConfigSchema.create`). */
  create?: boolean;
  /** Permission bits of the files of a new store (see `JsonConfigSchema.file_mode`). */
  fileMode?: number;
}

const MAIN_FILE_SHARE = 0.5;

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** Paths open in this process (shared by every copy of this package). */
const openPaths = processWide("open-paths", () => new Set<string>());

/**
 * Durability for a file-backed store: the lock, the journal and compaction.
 *
 * Every write is appended to the journal and fdatasync'ed before it is applied in memory. The
 * main file carries a `generation` and every journal line the generation it applies to.
 *
 * Compaction folds the journal into the main file **while writes go on**. Under the mutex it
 * appends a mark of generation G + 1 (every later line carries G + 1) and captures the records
 * as of that moment (`captureView`: copies of what changes in place, references to the rest),
 * which is quick. Outside the mutex it writes those records as generation G + 1 to a temporary
 * file, fsyncs it, renames it over the main file and fsyncs the directory; only then, under the
 * mutex again, it drops the journal's lines before the mark. The invariant: the main file of
 * generation G + 1 holds exactly the lines before the mark, and the lines after it carry G + 1.
 * So after a crash at any point, replay finds either the old main file (G) with its lines, the
 * mark and the new lines, applied in order; or the new main file (G + 1), with the old lines
 * skipped as older and the new ones applied; never a line twice, never one missing.
 *
 * A compaction that holds the mutex throughout (on open, on close, and when a failed append left
 * the journal unusable) writes everything, then empties the journal. A concurrent compaction
 * that finds another compaction replaced the main file meanwhile throws its result away.
 */
export class FilePersistence {
  /** Serialises writes, the short steps of compaction and closing (the store's mutex too). */
  readonly mutex = new Mutex();
  #generation: number;
  #compactAt: number;
  /** The journal size that triggers a compaction, given the main file's size. */
  readonly #threshold: (mainBytes: number) => number;
  /** Permission bits of the files while the main file does not exist (`file_mode`). */
  readonly #newFileMode: number;
  /** Compactions run one at a time, in order. */
  #compactions: Promise<unknown> = Promise.resolve();
  #backgroundQueued = false;
  /** The snapshot a concurrent compaction is writing and installing, outside the mutex. */
  #writing: Promise<unknown> | null = null;
  /** Journal appends in flight, and who waits for there to be none (see `#quiet`). */
  #appending = 0;
  #quietWaiters: (() => void)[] = [];
  /** Counts replacements of the main file. */
  #installs = 0;
  #closing = false;

  private constructor(
    readonly files: StoreFiles,
    private readonly state: MemoryState,
    private readonly lock: FileLock,
    private readonly journal: Journal,
    generation: number,
    policy: CompactionPolicy,
    mainBytes: number,
    newFileMode: number,
  ) {
    this.#generation = generation;
    this.#newFileMode = newFileMode;
    this.#threshold = policy.growWithMainFile
      ? (main) => Math.max(policy.bytes, Math.floor(main * MAIN_FILE_SHARE))
      : () => policy.bytes;
    this.#compactAt = this.#threshold(mainBytes);
  }

  /** Locks, loads and replays; finishes an interrupted compaction. */
  static async open(path: string, policy: CompactionPolicy): Promise<FilePersistence> {
    const files = await resolveFiles(path, policy.create ?? true);
    if (openPaths.has(files.main)) {
      throw new StoreLockedError(`cannot open ${files.main}: it is already open in this process`, {
        adapter: ADAPTER,
      });
    }
    openPaths.add(files.main);
    let lock: FileLock | null = null;
    let journal: Journal | null = null;
    try {
      const newFileMode = policy.fileMode ?? DEFAULT_FILE_MODE;
      const mode = (await fileMode(files.main)) ?? newFileMode;
      lock = await FileLock.acquire(files.lock, files.main, mode);
      const snapshot = await readSnapshot(files.main);
      const state = snapshot?.state ?? new MemoryState();
      const generation = snapshot?.generation ?? 0;
      const contents = await readJournal(files.journal);
      const replayed = replay(state, contents, generation, files.journal);
      // Everything read is valid; from here on writing is safe.
      await unlink(`${files.journal}.tmp`).catch(() => undefined);
      journal = await Journal.open(files.journal, contents, mode);
      const mainBytes = await fileSize(files.main);
      const persistence = new FilePersistence(
        files,
        state,
        lock,
        journal,
        replayed.generation,
        policy,
        mainBytes,
        newFileMode,
      );
      if (snapshot === null || replayed.obsolete > 0 || replayed.generation > generation) {
        await persistence.#compactHoldingMutex();
      }
      await unlink(files.temp).catch(() => undefined);
      await unlink(files.concurrentTemp).catch(() => undefined);
      return persistence;
    } catch (error) {
      await journal?.close().catch(() => undefined);
      await lock?.release().catch(() => undefined);
      openPaths.delete(files.main);
      throw error;
    }
  }

  get memoryState(): MemoryState {
    return this.state;
  }

  /**
   * Makes `ops` durable, all or none: one journal line, one fdatasync. Call holding the mutex,
   * after they were checked and before they are applied.
   */
  async commit(ops: readonly Operation[]): Promise<void> {
    if (this.journal.broken) await this.#compactHoldingMutex();
    const line = encodeGroup(ops, this.#generation);
    this.#appending++;
    try {
      await this.journal.append(line);
    } finally {
      if (--this.#appending === 0) for (const wake of this.#quietWaiters.splice(0)) wake();
    }
  }

  /** Resolves when no journal append is in flight: a concurrent compaction writes only then. */
  #quiet(): Promise<void> {
    if (this.#appending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#quietWaiters.push(resolve));
  }

  /**
   * Starts a compaction in the background once the journal passed the threshold (call holding
   * the mutex, after a commit). A failure loses nothing: it is retried later.
   */
  afterCommit(): void {
    if (this.#closing || this.#backgroundQueued || this.journal.size < this.#compactAt) return;
    this.#backgroundQueued = true;
    this.#enqueue(() => {
      this.#backgroundQueued = false;
      return this.#compactConcurrently();
    }).catch(() => {
      this.#compactAt = this.journal.size + this.#threshold(0);
    });
  }

  /** Folds the journal into the main file while writes go on. Call without holding the mutex. */
  compact(): Promise<void> {
    return this.#enqueue(() => this.#compactConcurrently());
  }

  /** Resolves once no compaction is queued or running (their failures are not reported here). */
  idle(): Promise<void> {
    return this.#compactions.then(() => undefined);
  }

  /** Waits for compactions, then compacts if anything is journaled and releases the lock. */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#compactions;
    await this.mutex.run(async () => {
      try {
        if (this.journal.size > 0 || this.journal.broken) await this.#compactHoldingMutex();
        await this.journal.close();
        // Empty now; removing it only tidies the directory.
        await unlink(this.files.journal).catch(() => undefined);
      } finally {
        await this.journal.close().catch(() => undefined);
        await this.lock.release().catch(() => undefined);
        openPaths.delete(this.files.main);
      }
    });
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.#compactions.then(task);
    this.#compactions = run.catch(() => undefined);
    return run;
  }

  async #compactConcurrently(): Promise<void> {
    const begun = await this.mutex.run(async () => {
      if (this.journal.broken) return this.#compactHoldingMutex().then(() => null);
      const next = this.#generation + 1;
      const markAt = this.journal.size;
      await this.journal.append(encodeGenerationMark(next));
      this.#generation = next;
      return { next, markAt, installs: this.#installs, view: captureView(this.state) };
    });
    if (begun === null) return;
    // The snapshot and its rename run outside the mutex (writes go on: a crash after the rename
    // leaves the new main file with the whole journal, which replay handles); a compaction that
    // holds the mutex waits for them first (see #compactHoldingMutex).
    const installing = (async () => {
      const tmp = await writeSnapshotTemp(
        begun.view,
        begun.next,
        this.files.concurrentTemp,
        await this.#fileMode(),
        () => this.#quiet(),
      );
      if (this.#installs !== begun.installs) {
        await unlink(tmp).catch(() => undefined);
        return false;
      }
      await this.#install(tmp, begun.next);
      return true;
    })();
    this.#writing = installing;
    const installed = await installing.finally(() => {
      this.#writing = null;
    });
    if (!installed) return;
    await this.mutex.run(async () => {
      // Another compaction replaced the main file since: it emptied the journal already.
      if (this.#installs !== begun.installs + 1) return;
      await this.journal.dropBefore(begun.markAt, await this.#fileMode());
      this.#compactAt = this.#threshold(await fileSize(this.files.main));
    });
  }

  async #compactHoldingMutex(): Promise<void> {
    // A concurrent compaction's snapshot is finished first; it finds its result outdated.
    await this.#writing?.catch(() => undefined);
    const next = this.#generation + 1;
    const view = captureView(this.state);
    const tmp = await writeSnapshotTemp(view, next, this.files.temp, await this.#fileMode());
    await this.#install(tmp, next);
    await this.journal.reset();
    this.#compactAt = this.#threshold(await fileSize(this.files.main));
  }

  /**
   * The permission bits for a file of the store: the main file's (read each time, so a `chmod`
   * of it carries over to the next files), or the configured ones while it does not exist yet.
   */
  async #fileMode(): Promise<number> {
    return (await fileMode(this.files.main)) ?? this.#newFileMode;
  }

  /** Renames `tmp`, a main file of `generation`, over the main file and syncs the directory. */
  async #install(tmp: string, generation: number): Promise<void> {
    try {
      await rename(tmp, this.files.main);
    } catch (error) {
      await unlink(tmp).catch(() => undefined);
      throw storageError("replace the main file", this.files.main, error);
    }
    // The new main file is in place: from now on journal lines belong to its generation.
    this.#generation = Math.max(this.#generation, generation);
    this.#installs++;
    try {
      await syncDirectory(dirname(this.files.main));
    } catch (error) {
      throw storageError("sync the directory of", this.files.main, error);
    }
  }
}
