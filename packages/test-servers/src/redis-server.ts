import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REDIS_URL_ENV } from "./env-names.js";
import { findFreePort } from "./free-port.js";
import { ManagedProcess } from "./managed-process.js";
import { trackDir, untrackDir } from "./process-registry.js";

/** A running throwaway Redis server (no persistence). */
export interface RedisServer {
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  /** SIGKILLs the server and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

const READY_DEADLINE_MS = 30_000;

/** The `redis-server` executable (Debian's `redis-server` package), or null when not installed. */
export function redisServerBinary(): string | null {
  for (const candidate of ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]) {
    try {
      execFileSync(candidate, ["--version"], { stdio: "ignore" });
      return candidate;
    } catch {}
  }
  return null;
}

/**
 * Starts `redis-server` on a free port of 127.0.0.1, in memory only (no RDB, no AOF). Throws,
 * when it is not installed, an error that says how to install it or point the tests at a server
 * of your own.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const binary = redisServerBinary();
  if (binary === null)
    throw new Error(
      "These tests need a Redis server and redis-server is not installed. " +
        `Install it (apt-get install redis-server) or point them at a server of your own: ${REDIS_URL_ENV}=redis://127.0.0.1:6379 pnpm test`,
    );
  const port = await findFreePort();
  const dir = await mkdtemp(join(tmpdir(), "message-store-redis-"));
  trackDir(dir);
  return new Promise((resolve, reject) => {
    let settled = false;
    const stop = async () => {
      await proc.terminate("SIGKILL", 5_000);
      await rm(dir, { recursive: true, force: true });
      untrackDir(dir);
    };
    const args = [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
    ];
    const proc: ManagedProcess = new ManagedProcess(binary, [...args, "--dir", dir], {
      cwd: dir,
      onStdoutLine: (line) => {
        if (settled || !line.includes("Ready to accept connections")) return;
        settled = true;
        clearTimeout(timer);
        resolve({ url: `redis://127.0.0.1:${port}`, stop });
      },
    });
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const log = proc.logTail();
      void stop().finally(() => reject(new Error(`redis-server (port ${port}): ${why}:\n${log}`)));
    };
    const timer = setTimeout(
      () => fail(`not ready within ${READY_DEADLINE_MS / 1000}s`),
      READY_DEADLINE_MS,
    );
    void proc.exited.then((e) => fail(`exited before ready (${e.code ?? e.signal})`));
  });
}

/**
 * Redis for a test run. Honours `MESSAGE_STORE_REDIS_URL` (then `stop` does nothing); otherwise
 * starts a throwaway `redis-server` on a free port, which `stop` kills.
 */
export async function redisForTests(): Promise<{ url: string; stop(): Promise<void> }> {
  const external = process.env[REDIS_URL_ENV];
  if (external) return { url: external, stop: async () => {} };
  return startRedisServer();
}
