import { execFileSync } from "node:child_process";

/** A numeric OS identity to run a child process as. */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

let cached: RunAs | null | undefined;

function lookup(user: string): RunAs | null {
  try {
    const uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", user], { encoding: "utf8" }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}

/**
 * PostgreSQL refuses to run as root. When this process is root, returns the uid/gid of the
 * `postgres` OS user (creating it with `useradd --system --no-create-home` if missing);
 * otherwise returns null (run as ourselves).
 */
export function postgresRunAs(): RunAs | null {
  if (cached !== undefined) return cached;
  if (typeof process.getuid !== "function" || process.getuid() !== 0) {
    cached = null;
    return cached;
  }
  let ids = lookup("postgres");
  if (!ids) {
    try {
      execFileSync("useradd", ["--system", "--no-create-home", "postgres"], { stdio: "pipe" });
    } catch (err) {
      const e = err as { stderr?: Buffer; message: string };
      throw new Error(
        "Running as root, and PostgreSQL cannot run as root: the `postgres` OS user does not " +
          `exist and \`useradd --system --no-create-home postgres\` failed: ${e.stderr?.toString() || e.message}`,
      );
    }
    ids = lookup("postgres");
    if (!ids) throw new Error("Created OS user `postgres` but `id postgres` still fails");
  }
  cached = ids;
  return cached;
}
