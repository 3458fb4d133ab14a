import { execFileSync } from "node:child_process";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { findFreePort } from "./free-port.js";
import { ManagedProcess } from "./managed-process.js";
import { trackDir, untrackDir } from "./process-registry.js";
import { postgresRunAs } from "./run-as.js";

/** A running PgBouncer in front of one PostgreSQL server. */
export interface PgBouncerServer {
  /** `postgres://postgres@127.0.0.1:PORT/<database>`: the upstream URL with PgBouncer's port. */
  readonly url: string;
  readonly port: number;
  /** SIGKILLs PgBouncer and removes its directory. Idempotent. */
  stop(): Promise<void>;
  /** Tail of PgBouncer's log, for diagnostics. */
  logs(): string;
}

/** Options for {@link startPgBouncer}. */
export interface PgBouncerOptions {
  /** `pool_mode` (default `transaction`). */
  poolMode?: "session" | "transaction" | "statement";
  /** Server connections per database/user pair (`default_pool_size`, default 10). */
  poolSize?: number;
}

const READY_DEADLINE_MS = 15_000;

/** The `pgbouncer` executable (Debian's package puts it in /usr/sbin), or null when not installed. */
export function pgbouncerBinary(): string | null {
  for (const candidate of ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]) {
    try {
      execFileSync(candidate, ["--version"], { stdio: "ignore" });
      return candidate;
    } catch {}
  }
  return null;
}

/**
 * Starts PgBouncer (trust auth, user `postgres`) in front of the server at `upstreamUrl`, on a
 * free port, for every database of that server. Runs as the `postgres` OS user when this process
 * is root (PgBouncer refuses root). Throws when `pgbouncer` is not installed
 * (see {@link pgbouncerBinary}).
 */
export async function startPgBouncer(
  upstreamUrl: string,
  options: PgBouncerOptions = {},
): Promise<PgBouncerServer> {
  const binary = pgbouncerBinary();
  if (binary === null) throw new Error("pgbouncer is not installed (apt-get install pgbouncer)");
  const upstream = new URL(upstreamUrl);
  const port = await findFreePort();
  const dir = await mkdtemp(join(tmpdir(), "message-store-pgbouncer-"));
  trackDir(dir);
  const ini = [
    "[databases]",
    `* = host=${upstream.hostname} port=${upstream.port || "5432"}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${join(dir, "userlist.txt")}`,
    `pool_mode = ${options.poolMode ?? "transaction"}`,
    `default_pool_size = ${options.poolSize ?? 10}`,
    "max_client_conn = 1000",
    "server_login_retry = 1",
    "",
  ].join("\n");
  await writeFile(join(dir, "pgbouncer.ini"), ini);
  await writeFile(join(dir, "userlist.txt"), '"postgres" ""\n');
  const runAs = postgresRunAs();
  if (runAs) await chown(dir, runAs.uid, runAs.gid);
  const proc = new ManagedProcess(binary, [join(dir, "pgbouncer.ini")], {
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    cwd: dir,
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await proc.terminate("SIGKILL", 5_000);
    await rm(dir, { recursive: true, force: true });
    untrackDir(dir);
  };
  const url = new URL(upstreamUrl);
  url.port = String(port);
  url.hostname = "127.0.0.1";
  const deadline = Date.now() + READY_DEADLINE_MS;
  while (Date.now() < deadline && !proc.exitInfo) {
    if (await answers(url.toString()))
      return { url: url.toString(), port, stop, logs: () => proc.logTail() };
    await new Promise((r) => setTimeout(r, 100));
  }
  const log = proc.logTail();
  await stop();
  throw new Error(`pgbouncer did not start on port ${port}: ${log}`);
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
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
