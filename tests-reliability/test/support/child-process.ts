import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of `fixtures/<name>`. */
export function fixture(name: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", name);
}

/** What a child printed before it ended, and how it ended. */
export interface ChildRun {
  /** Complete stdout lines (a torn last line is dropped: it was never fully acknowledged). */
  lines: string[];
  stderr: string;
  signal: NodeJS.Signals | null;
  code: number | null;
}

/** When to SIGKILL the child: `delayMs` after spawn, or after it printed `afterLine`. */
export interface KillPlan {
  delayMs: number;
  afterLine?: string;
}

/**
 * Runs `node fixtures/<script> ...args`, SIGKILLs it as planned and resolves once it is gone.
 * A child that ends on its own (a crash of the fixture) resolves too; the caller checks `signal`.
 */
export function runAndKill(script: string, args: string[], plan: KillPlan): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [fixture(script), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer ??= setTimeout(() => child.kill("SIGKILL"), plan.delayMs);
    };
    if (plan.afterLine === undefined) arm();
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (plan.afterLine !== undefined && out.includes(`${plan.afterLine}\n`)) arm();
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ lines: out.split("\n").slice(0, -1), stderr, signal, code });
    });
  });
}
