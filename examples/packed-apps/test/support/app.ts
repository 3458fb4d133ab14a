import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { inject } from "vitest";

/** A fresh application folder with the given packed packages (and their registry deps) installed. */
export interface App {
  dir: string;
  write(file: string, text: string): void;
  /** Runs `node` with these arguments in the app folder; resolves stdout, throws with stderr on failure. */
  node(args: string[], env?: Record<string, string>): string;
  /** Runs a command in the app folder and returns its status and output, never throwing. */
  run(command: string, args: string[]): { status: number | null; output: string };
}

/** Creates an application that depends on `packages` (names of packed tarballs) plus `extra` registry deps. */
export function createApp(packages: string[], extra: Record<string, string> = {}): App {
  const tarballs = inject("tarballs");
  const dir = mkdtempSync(join(tmpdir(), "message-store-app-"));
  const dependencies: Record<string, string> = { ...extra };
  for (const name of packages) {
    const tarball = tarballs[name];
    if (!tarball) throw new Error(`no tarball for ${name}`);
    dependencies[name] = `file:${tarball}`;
  }
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "fresh-app", private: true, type: "module", dependencies }, null, 2),
  );
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
    {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  return {
    dir,
    write(file, text) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    },
    node(args, env = {}) {
      const result = spawnSync(process.execPath, args, {
        cwd: dir,
        env: { ...process.env, NODE_PATH: "", ...env },
        encoding: "utf8",
        timeout: 60_000,
      });
      if (result.status !== 0) {
        throw new Error(
          `node ${args.join(" ")} exited ${result.status}: ${result.stderr}${result.stdout}`,
        );
      }
      return result.stdout;
    },
    run(command, args) {
      const result = spawnSync(command, args, { cwd: dir, encoding: "utf8", timeout: 120_000 });
      return { status: result.status, output: `${result.stdout}${result.stderr}` };
    },
  };
}
