import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { MessageStore } from "@message-store/core";
import "@message-store/json";
import "@message-store/postgres";
import { createTestDatabase, dropTestDatabase } from "@message-store/test-servers";
import { afterAll, afterEach, beforeAll, beforeEach, inject } from "vitest";

export type Backend = "json" | "postgres";
/** The backends every test runs on. */
export const BACKENDS: Backend[] = ["json", "postgres"];

export interface TestStore {
  /** The store of the running test. */
  readonly store: MessageStore;
  /** The same store as the CLI's `--store` names it. */
  readonly spec: string;
}

/**
 * A store opened before each test and closed after it: a new JSON file in a temporary folder, or
 * the PostgreSQL database this test file creates once (tests use fresh conversation ids).
 */
export function useStore(backend: Backend): TestStore {
  let dir = "";
  let url = "";
  let files = 0;
  const current = { store: null as unknown as MessageStore, spec: "" };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "message-store-bridge-"));
    if (backend === "postgres") url = await createTestDatabase(inject("postgresUrl"), "bridge");
  });
  beforeEach(async () => {
    if (backend === "json") {
      const path = join(dir, `store-${files++}.json`);
      current.spec = `json:${path}`;
      current.store = await MessageStore.initialize({ storage: "json", path });
    } else {
      current.spec = `postgres:${url}`;
      current.store = await MessageStore.initialize({ storage: "postgres", dsn: url, pool_min: 0 });
    }
  });
  afterEach(() => current.store.close());
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (url) await dropTestDatabase(url);
  });
  return current;
}

const cliBin = join(
  dirname(createRequire(import.meta.url).resolve("@message-store/cli/package.json")),
  "bin/message-store.js",
);

/** Runs the built `message-store` CLI; resolves to its stdout, or rejects with its output. */
export function runCli(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [cliBin, ...args], {
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
        : reject(new Error(`message-store ${args.join(" ")} exited ${code}\n${stdout}\n${stderr}`)),
    );
  });
}
