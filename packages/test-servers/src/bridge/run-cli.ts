import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Runs the `message-store` command of the package under test (the bin of its `@message-store/cli`
 * dev dependency, resolved from the working directory vitest runs in); resolves to its stdout,
 * or rejects with its output.
 */
export function runCli(args: string[]): Promise<string> {
  const manifest = createRequire(join(process.cwd(), "noop.js")).resolve(
    "@message-store/cli/package.json",
  );
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  const command = join(dirname(manifest), bin["message-store"]!);
  const child = spawn(process.execPath, [command, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`message-store ${args.join(" ")} exited ${code}\n${stdout}\n${stderr}`)),
    );
  });
}
