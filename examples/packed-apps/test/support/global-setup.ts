import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { postgresForTests } from "@message-store/test-servers";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    tarballs: Record<string, string>;
    postgresUrl: string;
  }
}

/** The published packages, by folder. */
export const PUBLISHED = [
  "packages/core",
  "packages/store-json",
  "packages/store-postgres",
  "packages/store-mongo",
  "packages/store-sqlite",
  "packages/otel",
  "packages/cli",
  "packages/ai-sdk",
  "packages/langchain",
  "packages/openai-agents",
  "tests-conformance",
];

const ROOT = resolve(import.meta.dirname, "../../../..");

/**
 * pnpm, as a command: the pnpm running these tests when there is one (`pnpm test`), else
 * `npx -y pnpm@10`. Not npx under pnpm: npm warns about each pnpm-only `npm_config_*` variable
 * pnpm sets (three lines per call).
 */
function pnpmCommand(): [string, string[]] {
  const running = process.env.npm_execpath;
  return running !== undefined && /pnpm/.test(running)
    ? [process.execPath, [running]]
    : ["npx", ["-y", "pnpm@10"]];
}

/**
 * Packs every published package once with pnpm (which rewrites `workspace:` ranges as a release
 * does) and starts PostgreSQL for the applications that use it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "message-store-tarballs-"));
  const tarballs: Record<string, string> = {};
  for (const folder of PUBLISHED) {
    const before = new Set(readdirSync(dir));
    const [command, prefix] = pnpmCommand();
    execFileSync(command, [...prefix, "pack", "--pack-destination", dir], {
      cwd: join(ROOT, folder),
      stdio: ["ignore", "ignore", "inherit"],
    });
    const file = readdirSync(dir).find((f) => !before.has(f));
    if (!file) throw new Error(`pnpm pack produced nothing for ${folder}`);
    const name = file
      .replace(/-\d+\.\d+\.\d+.*\.tgz$/, "")
      .replace(/^message-store-/, "@message-store/");
    tarballs[name] = join(dir, file);
  }
  project.provide("tarballs", tarballs);
  const server = await postgresForTests();
  project.provide("postgresUrl", server.url);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
