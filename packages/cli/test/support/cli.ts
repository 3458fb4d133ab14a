import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createTestDatabase } from "@message-store/test-servers";
import { inject } from "vitest";
import { makeDataset } from "./make-dataset.mjs";

/** The built binary under test. */
export const CLI = resolve(import.meta.dirname, "../../bin/message-store.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment of a spawned CLI: the test's, without a default store, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.MESSAGE_STORE;
  delete base.MESSAGE_STORE_DEBUG;
  return { ...base, ...env };
}

/** Starts `node dist/index.js …args` (stdout and stderr are pipes, so not a terminal). */
export function startCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: childEnv(options.env ?? {}),
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Collects a started CLI's output until it exits. */
export function finish(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolveResult, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolveResult({ code, signal, stdout, stderr }));
  });
}

/** Runs the CLI to completion. */
export function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): Promise<CliResult> {
  const child = startCli(args, options);
  const result = finish(child);
  child.stdin!.end(options.input ?? "");
  return result;
}

/** Runs the CLI and fails with its output unless it exits 0. */
export async function runOk(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): Promise<CliResult> {
  const result = await runCli(args, options);
  if (result.code !== 0) {
    throw new Error(
      `message-store ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

/** A fresh temporary folder, removed by the returned function. */
export function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "message-store-cli-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes the sample dataset as an NDJSON export into `dir` and returns its path and counts. */
export function writeDataset(
  dir: string,
  conversations: number,
  perConversation: number,
  name = "dataset.ndjson",
) {
  const { lines, counts } = makeDataset({ conversations, perConversation });
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, counts };
}

/** A fresh PostgreSQL database on the test server; its DSN. */
export function freshPostgres(prefix: string): Promise<string> {
  return createTestDatabase(inject("postgresUrl"), prefix);
}

/** A fresh MongoDB database on the test server; its URI (the database is the URI path). */
export function freshMongo(prefix: string): string {
  const url = new URL(inject("mongoUri"));
  url.pathname = `/${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  return url.toString();
}
