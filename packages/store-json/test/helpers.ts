import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "store-json-test-"));
  dirs.push(dir);
  return dir;
}

/**
 * Copies the main file and journal of `path` into a new directory, as a crash would leave them
 * right now (every acknowledged write is already on disk). Returns the copy's main path.
 */
export function crashCopy(path: string): string {
  const copy = join(tempDir(), "db.json");
  for (const suffix of ["", ".journal"]) {
    if (existsSync(path + suffix)) copyFileSync(path + suffix, copy + suffix);
  }
  return copy;
}

export { messageInput as message, traceInput as trace } from "@message-store/test-servers";

export const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;

/** Runs `node <fixture> …args` and resolves with its exit code and output. */
export function runFixture(
  fixture: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(FIXTURES, fixture), ...args]);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A small deterministic PRNG (mulberry32), so failures reproduce. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
