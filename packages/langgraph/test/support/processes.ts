import { spawn } from "node:child_process";
import { join } from "node:path";
import { cliBin, runNode as runNodeIn } from "@message-store/test-servers/bridge";

export { runCli } from "@message-store/test-servers/bridge";

/** Runs `node <args>` from the package's folder; resolves to stdout, or rejects with the output. */
export const runNode = (args: string[], what?: string): Promise<string> =>
  runNodeIn(args, { cwd: join(import.meta.dirname, "../.."), what });

/** The fixture `test/fixtures/<name>` as a path. */
export const fixture = (name: string) => join(import.meta.dirname, "../fixtures", name);

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
