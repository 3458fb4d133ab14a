import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Freezes an embedded PostgreSQL with SIGSTOP, the way a network partition or a hung host looks
 * to a client: sockets stay open, nothing answers. Postgres backends are their own process
 * groups (they call setsid), so the postmaster and each child are stopped one by one.
 * Returns the function that thaws them (SIGCONT).
 */
export function freezePostgres(dataDir: string): () => void {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  let children: number[] = [];
  try {
    children = execFileSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    // No children: only the postmaster to stop.
  }
  const pids = [postmaster, ...children];
  for (const pid of pids) process.kill(pid, "SIGSTOP");
  return () => {
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // already gone
      }
    }
  };
}

/**
 * Freezes the process listening on TCP `port` (jongodb is a single process) with SIGSTOP.
 * Returns the function that thaws it.
 */
export function freezeListener(port: number): () => void {
  const out = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  const pid = Number(/pid=(\d+)/.exec(out)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0)
    throw new Error(`no process listens on port ${port}: ${out}`);
  process.kill(pid, "SIGSTOP");
  return () => process.kill(pid, "SIGCONT");
}

/** Resolves `"HUNG"` if `promise` has not settled within `ms`, so a hang fails a test instead of stalling it. */
export function settleWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown } | "HUNG"> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<"HUNG">((r) => {
    timer = setTimeout(() => r("HUNG"), ms);
  });
  const settled = promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return Promise.race([settled, hung]).finally(() => clearTimeout(timer));
}
