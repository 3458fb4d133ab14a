import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, readFile, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { StoreLockedError } from "@message-store/core";
import { ADAPTER } from "./config.js";
import { errorCode, openWithMode, storageError } from "./fs-util.js";
import { processWide } from "./process-wide.js";

/** What a lock file holds. */
interface LockOwner {
  pid: number;
  hostname: string;
  /** Random per acquisition: tells our lock from a stale one with a recycled pid. */
  token: string;
  /** Linux process start time (clock ticks since boot), to detect a recycled pid. */
  processStart: string | null;
  acquiredAt: string;
}

/** Tokens of the locks this process holds (shared by every copy of this package). */
const heldTokens = processWide("held-lock-tokens", () => new Set<string>());

/** Field 22 of /proc/<pid>/stat, and whether the process is a zombie; null off Linux. */
function procStat(pid: number): { start: string; zombie: boolean } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { start: fields[19] ?? "", zombie: fields[0] === "Z" };
  } catch {
    return null;
  }
}

/** True unless the owner is certainly gone. A lock from another host is assumed live. */
function isAlive(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return true;
  // Our own pid but not a lock we hold: left by an earlier process that had the same pid
  // (common in containers, where the app is often pid 1).
  if (owner.pid === process.pid) return heldTokens.has(owner.token);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
  }
  const stat = procStat(owner.pid);
  if (stat?.zombie) return false;
  return !(stat && owner.processStart !== null && stat.start !== owner.processStart);
}

function parseOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as LockOwner;
    return Number.isSafeInteger(o.pid) &&
      typeof o.token === "string" &&
      typeof o.hostname === "string"
      ? o
      : null;
  } catch {
    return null;
  }
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw storageError("read the lock file", path, error);
  }
}

/**
 * An exclusive lock on a store file, held through `<path>.lock` (created with the store file's
 * permission bits `mode`). The lock file is written in full
 * to a private temporary file and then hard-linked into place, which fails if the lock exists
 * (so a reader never sees a half-written lock). A lock whose owner process is gone is taken over
 * through a claim (see `takeOver`), so two processes taking over the same stale lock cannot both
 * win.
 */
export class FileLock {
  private constructor(
    readonly path: string,
    private readonly token: string,
  ) {}

  /** Acquires the lock or throws `StoreLockedError` naming the owner. */
  static async acquire(path: string, storePath: string, mode: number | null): Promise<FileLock> {
    const token = randomUUID();
    const owner: LockOwner = {
      pid: process.pid,
      hostname: hostname(),
      token,
      processStart: procStat(process.pid)?.start ?? null,
      acquiredAt: new Date().toISOString(),
    };
    const tmp = `${path}.${token}`;
    try {
      const handle = await openWithMode(tmp, "wx", mode);
      try {
        await handle.writeFile(`${JSON.stringify(owner)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw storageError("create the lock file", tmp, error);
    }
    try {
      // Enough tries to wait out another process's takeover (20 ms a try) under heavy load.
      for (let attempt = 0; attempt < 100; attempt++) {
        try {
          await publish(tmp, path, mode);
          heldTokens.add(token);
          return new FileLock(path, token);
        } catch (error) {
          if (errorCode(error) !== "EEXIST")
            throw storageError("create the lock file", path, error);
        }
        const text = await readText(path);
        if (text === null) continue; // released meanwhile: try again
        const current = parseOwner(text);
        if (current === null) {
          throw locked(
            storePath,
            `its lock file ${path} is unreadable; delete it if no process uses the store`,
          );
        }
        if (isAlive(current)) {
          const where = current.hostname === hostname() ? "" : ` on host ${current.hostname}`;
          throw locked(
            storePath,
            `it is open in process ${current.pid}${where} (lock file ${path})`,
          );
        }
        const why = await takeOver(path, text, tmp, mode);
        if (why !== null) throw locked(storePath, why);
      }
      throw locked(storePath, `another process keeps taking the lock ${path}`);
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
  }

  /** Removes the lock file if it is still ours. */
  async release(): Promise<void> {
    heldTokens.delete(this.token);
    const text = await readText(this.path).catch(() => null);
    if (text !== null && parseOwner(text)?.token === this.token) {
      await unlink(this.path).catch(() => undefined);
    }
  }
}

const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/** Creates `path` with the content of `tmp`, failing with EEXIST if it exists. */
async function publish(tmp: string, path: string, mode: number | null): Promise<void> {
  try {
    await link(tmp, path);
  } catch (error) {
    if (!NO_HARD_LINKS.has(errorCode(error) ?? "")) throw error;
    // A file system without hard links: exclusive create (a reader may briefly see it empty).
    const handle = await openWithMode(path, "wx", mode);
    try {
      await handle.writeFile(await readFile(tmp));
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

function locked(storePath: string, why: string): StoreLockedError {
  return new StoreLockedError(`cannot open ${storePath}: ${why}`, { adapter: ADAPTER });
}

/**
 * Removes the stale lock `staleText` (its owner is dead) if it is still in place, so the
 * caller can try to publish its own. Resolves to null to try again, or to why the store stays
 * locked.
 *
 * Why this is safe: `path` only ever changes by a publish (which fails while it exists) or by an
 * unlink done here, and that unlink is done only by the holder of the claim
 * `<path>.takeover-<hash of the stale lock>`, created by an exclusive hard link of the caller's own lock
 * file (so it names its holder). One claim per stale lock means one remover: the claimant reads
 * the lock again and unlinks it only if it is still the stale one, then drops the claim; a late
 * contender that claims afterwards reads the new owner's lock and leaves it. (Renaming the stale
 * lock aside instead, as before, could move a lock another contender had just published, and a
 * third could publish into the gap before it was put back: two winners, seen under load.)
 */
async function takeOver(
  path: string,
  staleText: string,
  ownLockFile: string,
  mode: number | null,
): Promise<string | null> {
  const claim = `${path}.takeover-${nameOf(staleText)}`;
  if (!(await exclusiveLink(ownLockFile, claim, mode)))
    return abandonedClaim(claim, ownLockFile, mode);
  try {
    if ((await readText(path)) === staleText) await unlink(path).catch(() => undefined);
  } finally {
    await unlink(claim).catch(() => undefined);
  }
  return null;
}

/**
 * Another process holds the claim on the stale lock: wait for it (null: try again). If its
 * holder died mid-takeover (a crash in a window of a few milliseconds), the claim is removed the
 * same way, under a claim of its own; a crash there too leaves a message to delete it by hand.
 */
async function abandonedClaim(
  claim: string,
  ownLockFile: string,
  mode: number | null,
): Promise<string | null> {
  const text = await readText(claim);
  const claimant = text === null ? null : parseOwner(text);
  if (text === null || (claimant !== null && isClaimantAlive(claimant))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return null;
  }
  const cleanup = `${claim}-${nameOf(text)}`;
  if (!(await exclusiveLink(ownLockFile, cleanup, mode))) {
    return `a process taking over its stale lock died; delete ${claim} and ${cleanup} if no process uses the store`;
  }
  try {
    if ((await readText(claim)) === text) await unlink(claim).catch(() => undefined);
  } finally {
    await unlink(cleanup).catch(() => undefined);
  }
  return null;
}

/** A file name part for a lock file's text (never the text's own token: it may hold a path). */
function nameOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** Creates `to` with the content of `from` (see `publish`): false if `to` exists. */
async function exclusiveLink(from: string, to: string, mode: number | null): Promise<boolean> {
  try {
    await publish(from, to, mode);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw storageError("take over the stale lock file", to, error);
  }
}

/**
 * A claim is held for milliseconds, so one of this process's own (a concurrent acquisition) is
 * live; one with our pid but another start time was left by an earlier process (containers
 * reuse pid 1).
 */
function isClaimantAlive(claimant: LockOwner): boolean {
  if (claimant.hostname === hostname() && claimant.pid === process.pid) {
    return claimant.processStart === null || claimant.processStart === procStat(process.pid)?.start;
  }
  return isAlive(claimant);
}
