import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { MessageStore } from "@message-store/core";
import "@message-store/json";
import "@message-store/postgres";
import { expect } from "vitest";
import { freshPostgres, startCli } from "./cli.js";
import { type StudioSeed, seedStudioStore } from "./studio-seed.js";

/** A running `message-store studio` child and what it printed. */
export interface RunningStudio {
  /** The printed URL, token included (in its fragment: `/#token=…`). */
  url: string;
  origin: string;
  token: string;
  output: () => string;
  child: ChildProcess;
  /** SIGTERM, then resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the built CLI's `studio` with `args` and waits for the URL it prints. */
export async function startStudio(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<RunningStudio> {
  const child = startCli(["studio", ...args], options);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => resolve(code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`studio did not start:\n${stdout}\n${stderr}`)),
      30_000,
    );
    const check = () => {
      const match = /open (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`studio exited ${code}:\n${stdout}\n${stderr}`));
    });
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: new URLSearchParams(parsed.hash.slice(1)).get("token")!,
    output: () => stdout + stderr,
    child,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Seeds a JSON file store at `<dir>/<name>` with the studio sample data. */
export async function seedJsonStore(
  dir: string,
  name = "studio.json",
  now = Date.now(),
): Promise<{ spec: string; seed: StudioSeed }> {
  const path = join(dir, name);
  const store = await MessageStore.initialize({ storage: "json", path });
  try {
    return { spec: `json:${path}`, seed: await seedStudioStore(store, now) };
  } finally {
    await store.close();
  }
}

/** Seeds a PostgreSQL database (DSN) with the studio sample data. */
export async function seedPostgresStore(dsn: string, now = Date.now()): Promise<StudioSeed> {
  const store = await MessageStore.initialize({ storage: "postgres", dsn });
  try {
    return await seedStudioStore(store, now);
  } finally {
    await store.close();
  }
}

/** A request to a studio with its token (Bearer) unless `auth: false`; redirects not followed. */
export function apiCall(
  studio: RunningStudio,
  path: string,
  init: RequestInit & { auth?: boolean } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.auth !== false) headers.set("Authorization", `Bearer ${studio.token}`);
  return fetch(`${studio.origin}${path}`, { ...init, headers, redirect: "manual" });
}

/** A `GET` that must answer 200, as JSON. */
export async function apiJson<T>(studio: RunningStudio, path: string): Promise<T> {
  const response = await apiCall(studio, path);
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
  return (await response.json()) as T;
}

/** The seeded store served twice: read-only, and with `--allow-writes`. */
export interface StudioPair {
  seed: StudioSeed;
  readOnly: RunningStudio;
  writable: RunningStudio;
  stop(): Promise<void>;
}

/** The backends the studio's API tests run on. */
export const STUDIO_BACKENDS = [
  { name: "JSON file", storage: "json" },
  { name: "PostgreSQL", storage: "postgres" },
] as const;

/**
 * Seeds a store and starts a read-only and a writable studio on it. JSON: two files seeded alike
 * (a file is locked by the process that opens it); PostgreSQL: one fresh database, its DSN
 * carrying `password` (trust auth ignores it) so tests can check it never reaches the page.
 */
export async function startStudioPair(
  storage: "json" | "postgres",
  dir: string,
  options: { prefix: string; password?: string },
): Promise<StudioPair> {
  let seed: StudioSeed;
  let args: string[];
  let writableArgs: string[];
  let env: Record<string, string> = {};
  if (storage === "json") {
    const now = Date.now();
    const readOnly = await seedJsonStore(dir, `${options.prefix}-read-only.json`, now);
    const writable = await seedJsonStore(dir, `${options.prefix}-writable.json`, now);
    seed = readOnly.seed;
    args = ["--store", readOnly.spec];
    writableArgs = ["--store", writable.spec];
  } else {
    const dsn = new URL(await freshPostgres(options.prefix));
    if (options.password !== undefined) dsn.password = options.password;
    seed = await seedPostgresStore(dsn.toString());
    args = writableArgs = ["--store", "postgres:env:STUDIO_DSN"];
    env = { STUDIO_DSN: dsn.toString() };
  }
  const readOnly = await startStudio(args, { cwd: dir, env });
  const writable = await startStudio([...writableArgs, "--allow-writes"], { cwd: dir, env });
  return {
    seed,
    readOnly,
    writable,
    stop: async () => {
      await Promise.all([readOnly.stop(), writable.stop()]);
    },
  };
}
