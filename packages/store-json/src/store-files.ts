import { lstat, mkdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { NotFoundError, StoreLockedError } from "@message-store/core";
import { ADAPTER } from "./config.js";
import { errorCode, storageError } from "./fs-util.js";

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => null)) !== null;
}

function noStore(path: string): NotFoundError {
  return new NotFoundError(`no message-store data at ${path} (opened with create: false)`, {
    adapter: ADAPTER,
  });
}

/** The file layout of one store. */
export interface StoreFiles {
  main: string;
  journal: string;
  lock: string;
  /** The main file's next version, written by a compaction that holds the store's mutex. */
  temp: string;
  /** The same, written by a compaction while writes go on. */
  concurrentTemp: string;
}

/**
 * The store's real files: the main file's absolute, symlink-free path (a symlink to the main file
 * is followed, so every alias shares one lock and journal, and compaction replaces the target,
 * leaving the symlink in place). Missing directories are created. A main file with more than one
 * hard link is refused: the other name would get a lock of its own, and a compaction (which
 * writes a new file) would split the two names apart.
 */
export async function resolveFiles(path: string, create: boolean): Promise<StoreFiles> {
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
  return {
    main,
    journal: `${main}.journal`,
    lock: `${main}.lock`,
    temp: `${main}.tmp`,
    concurrentTemp: `${main}.compacting.tmp`,
  };
}
