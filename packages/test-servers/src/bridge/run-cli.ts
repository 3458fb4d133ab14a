import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The `message-store` bin of the package under test (its `@message-store/cli` dev dependency,
 * resolved from the working directory vitest runs in).
 */
export function cliBin(): string {
  const manifest = createRequire(join(process.cwd(), "noop.js")).resolve(
    "@message-store/cli/package.json",
  );
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  return join(dirname(manifest), bin["message-store"]!);
}

/**
 * Runs `node <args>` (from `cwd`, default the working directory); resolves to its stdout, or
 * rejects with its output, named `what`.
 */
export function runNode(
  args: string[],
  { cwd, what = args.join(" ") }: { cwd?: string; what?: string } = {},
): Promise<string> {
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${what} exited ${code}\n${stdout}\n${stderr}`)),
    );
  });
}

/** Runs the package under test's `message-store` command; resolves to its stdout. */
export function runCli(args: string[]): Promise<string> {
  return runNode([cliBin(), ...args], { what: `message-store ${args.join(" ")}` });
}
