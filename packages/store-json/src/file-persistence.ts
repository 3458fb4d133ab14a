import { lstat, mkdir, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { IntegrityError, NotFoundError, StoreLockedError } from "@message-store/core";
import { ADAPTER } from "./config.js";
import { FileLock } from "./file-lock.js";
import { errorCode, fileMode, storageError, syncDirectory } from "./fs-util.js";
import { Journal, type JournalContents, readJournal } from "./journal.js";
import { MemoryState } from "./memory-state.js";
import { decodeLine, encodeGroup } from "./operation-codec.js";
import { applyOperation, checkOperation, type Operation } from "./operations.js";
import { processWide } from "./process-wide.js";
import { corruptData } from "./record-schemas.js";
import { readSnapshot, writeSnapshotTemp } from "./snapshot-file.js";

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
}

const MAIN_FILE_SHARE = 0.5;

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => null)) !== null;
}

function noStore(path: string): NotFoundError {
  return new NotFoundError(`no message-store data at ${path} (opened with create: false)`, {
    adapter: ADAPTER,
  });
}

/** Paths open in this process (shared by every copy of this package). */
const openPaths = processWide("open-paths", () => new Set<string>());

/** The file layout of one store. */
export interface StoreFiles {
  main: string;
  journal: string;
  lock: string;
  temp: string;
}

/**
 * The store's real files: the main file's absolute, symlink-free path (a symlink to the main file
 * is followed, so every alias shares one lock and journal, and compaction replaces the target,
 * leaving the symlink in place). Missing directories are created. A main file with more than one
 * hard link is refused: the other name would get a lock of its own, and a compaction (which
 * writes a new file) would split the two names apart.
 */
async function resolveFiles(path: string, create: boolean): Promise<StoreFiles> {
  const absolute = resolve(path);
  let main: string;
  try {
    main = await realpath(absolute);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw storageError("resolve the path", absolute, error);
    if ((await lstat(absolute).catch(() => null))?.isSymbolicLink()) {
      throw storageError("follow the symlink (its target is missing)", absolute, error);
    }
    try {
      if (create) await mkdir(dirname(absolute), { recursive: true });
      main = join(await realpath(dirname(absolute)), basename(absolute));
    } catch (error) {
      if (!create && errorCode(error) === "ENOENT") throw noStore(absolute);
      throw storageError("create the directory of", absolute, error);
    }
    if (!create && !(await exists(main)) && !(await exists(`${main}.journal`))) {
      throw noStore(absolute);
    }
  }
  const links = (await stat(main).catch(() => null))?.nlink ?? 1;
  if (links > 1) {
    throw new StoreLockedError(
      `cannot open ${main}: the file has ${links} hard links, and a store opened through another of its names would not share its lock; keep one name (use a symlink for an alias)`,
      { adapter: ADAPTER },
    );
  }
  return { main, journal: `${main}.journal`, lock: `${main}.lock`, temp: `${main}.tmp` };
}

/**
 * Replays the journal over the main file's state. Lines of an older generation were already
 * folded into the main file by a compaction that crashed before emptying the journal: they are
 * skipped (and counted). A line that does not apply is corruption, reported with its line.
 */
function replay(
  state: MemoryState,
  contents: JournalContents | null,
  generation: number,
  path: string,
): number {
  let obsolete = 0;
  for (const line of contents?.lines ?? []) {
    const location = `${path}:${line.lineNumber}`;
    const { gen, ops } = decodeLine(line.value, location);
    if (gen < generation) {
      obsolete++;
      continue;
    }
    if (gen > generation) {
      throw corruptData(
        `journal line ${line.lineNumber} belongs to generation ${gen} but the main file is at generation ${generation} (was the main file replaced by an older copy?)`,
        location,
      );
    }
    for (const op of ops) {
      try {
        checkOperation(state, op, "replay");
      } catch (error) {
        if (!(error instanceof IntegrityError)) throw error;
        throw corruptData(
          `journal line ${line.lineNumber} does not apply to the main file: ${error.message}`,
          location,
        );
      }
      applyOperation(state, op);
    }
  }
  return obsolete;
}

/**
 * Durability for a file-backed store: the lock, the journal and compaction.
 *
 * Every write is appended to the journal and fdatasync'ed before it is applied in memory.
 * Compaction writes the whole state to `<path>.tmp`, fsyncs it, renames it over the main file,
 * fsyncs the directory and only then empties the journal. The main file carries a `generation`
 * and every journal line the generation it applies to; a compaction writes generation + 1. So
 * after a crash at any point, the journal lines already folded into the main file are
 * recognised by their older generation and skipped, never applied twice.
 */
export class FilePersistence {
  #generation: number;
  #compactAt: number;
  /** The journal size that triggers a compaction, given the main file's size. */
  readonly #threshold: (mainBytes: number) => number;

  private constructor(
    readonly files: StoreFiles,
    private readonly state: MemoryState,
    private readonly lock: FileLock,
    private readonly journal: Journal,
    generation: number,
    policy: CompactionPolicy,
    mainBytes: number,
  ) {
    this.#generation = generation;
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
      const mode = await fileMode(files.main);
      lock = await FileLock.acquire(files.lock, files.main, mode);
      const snapshot = await readSnapshot(files.main);
      const state = snapshot?.state ?? new MemoryState();
      const generation = snapshot?.generation ?? 0;
      const contents = await readJournal(files.journal);
      const obsolete = replay(state, contents, generation, files.journal);
      // Everything read is valid; from here on writing is safe.
      journal = await Journal.open(files.journal, contents, mode);
      const mainBytes = await fileSize(files.main);
      const persistence = new FilePersistence(
        files,
        state,
        lock,
        journal,
        generation,
        policy,
        mainBytes,
      );
      if (snapshot === null || obsolete > 0) await persistence.compact();
      await unlink(files.temp).catch(() => undefined);
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
   * Makes `ops` durable, all or none: one journal line, one fdatasync. Call after they were
   * checked and before they are applied.
   */
  async commit(ops: readonly Operation[]): Promise<void> {
    if (this.journal.broken) await this.compact();
    await this.journal.append(encodeGroup(ops, this.#generation));
  }

  /** Compacts once the journal passed the threshold. A failure here loses nothing: retried later. */
  async afterCommit(): Promise<void> {
    if (this.journal.size < this.#compactAt) return;
    try {
      await this.compact();
    } catch {
      this.#compactAt = this.journal.size + this.#threshold(0);
    }
  }

  /** Folds the journal into the main file (see the class comment for the crash-safety argument). */
  async compact(): Promise<void> {
    const next = this.#generation + 1;
    const tmp = await writeSnapshotTemp(this.files.main, this.state, next);
    try {
      await rename(tmp, this.files.main);
    } catch (error) {
      await unlink(tmp).catch(() => undefined);
      throw storageError("replace the main file", this.files.main, error);
    }
    // The new main file is in place: from now on journal lines belong to the next generation.
    this.#generation = next;
    try {
      await syncDirectory(dirname(this.files.main));
    } catch (error) {
      throw storageError("sync the directory of", this.files.main, error);
    }
    await this.journal.reset();
    this.#compactAt = this.#threshold(await fileSize(this.files.main));
  }

  /** Compacts if anything is journaled, removes the journal, releases the lock. */
  async close(): Promise<void> {
    try {
      if (this.journal.size > 0 || this.journal.broken) await this.compact();
      await this.journal.close();
      // Empty now; removing it only tidies the directory.
      await unlink(this.files.journal).catch(() => undefined);
    } finally {
      await this.journal.close().catch(() => undefined);
      await this.lock.release().catch(() => undefined);
      openPaths.delete(this.files.main);
    }
  }
}
