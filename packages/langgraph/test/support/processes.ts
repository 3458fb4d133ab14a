import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export { runCli } from "@message-store/test-servers/bridge";

/** Runs `node <args>` from the package's folder; resolves to stdout, or rejects with the output. */
export function runNode(args: string[], what = args.join(" ")): Promise<string> {
  const child = spawn(process.execPath, args, {
    cwd: join(import.meta.dirname, "../.."),
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
        : reject(new Error(`${what} exited ${code}\n${stdout}\n${stderr}`)),
    );
  });
}

/** The fixture `test/fixtures/<name>` as a path. */
export const fixture = (name: string) => join(import.meta.dirname, "../fixtures", name);

/** The `message-store` bin of the CLI this package's tests depend on. */
function cliBin(): string {
  const manifest = createRequire(import.meta.url).resolve("@message-store/cli/package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  return join(dirname(manifest), bin["message-store"]!);
}

/**
 * Runs `message-store studio --store <spec>` until `use` settles: `use` gets a `get(path)` that
 * calls the studio's JSON API with the token the studio printed.
 */
export async function withStudio<T>(
  spec: string,
  use: (get: (path: string) => Promise<unknown>) => Promise<T>,
): Promise<T> {
  const child = spawn(process.execPath, [cliBin(), "studio", "--store", spec], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      const check = () => {
        const match = /open (http:\/\/\S+)/.exec(output);
        if (match) resolve(new URL(match[1]!));
      };
      child.stdout.on("data", check);
      exited.then(() => reject(new Error(`studio exited:\n${output}`)));
    });
    const token = new URLSearchParams(url.hash.slice(1)).get("token")!;
    return await use(async (path) => {
      const response = await fetch(`${url.origin}${path}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      if (response.status !== 200)
        throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json();
    });
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}
