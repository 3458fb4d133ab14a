import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { MessageStore } from "@message-store/core";
import "@message-store/json";
import "@message-store/postgres";
import { startCli } from "./cli.js";
import { type StudioSeed, seedStudioStore } from "./studio-seed.js";

/** A running `message-store studio` child and what it printed. */
export interface RunningStudio {
  /** The printed URL, token included. */
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
    token: parsed.searchParams.get("token")!,
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
