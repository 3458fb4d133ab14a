import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { MONGODB_URL_ENV } from "./env-names.js";
import { ManagedProcess } from "./managed-process.js";
import { assertBuiltInServer } from "./platform.js";

/** A running (or stopped) in-memory MongoDB wire-protocol server (jongodb). */
export interface MongoServer {
  /** e.g. `mongodb://127.0.0.1:PORT/test?replicaSet=rs0` as printed by jongodb. */
  readonly uri: string;
  readonly port: number;
  /** Graceful stop (SIGTERM, then SIGKILL after 10 s). Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL the server. */
  kill(): Promise<void>;
  /** Start again on the same port; all data is lost (in-memory server), the uri stays valid. No-op if running. */
  start(): Promise<void>;
  /** Tail of the server's stdout/stderr, for diagnostics. */
  logs(): string;
}

const PKG = "@jongodb/memory-server-bin-linux-x64-gnu";
const READY_DEADLINE_MS = 30_000;

/** Absolute path of the jongodb native launcher shipped in `@jongodb/memory-server-bin-linux-x64-gnu`. */
export function jongodbBinaryPath(): string {
  assertBuiltInServer("MongoDB", MONGODB_URL_ENV);
  const pkgJson = createRequire(import.meta.url).resolve(`${PKG}/package.json`);
  const meta = JSON.parse(readFileSync(pkgJson, "utf8")) as { jongodb?: { binary?: string } };
  return join(dirname(pkgJson), meta.jongodb?.binary ?? "bin/jongodb");
}

/**
 * `replicaSet` (default): a single-node replica set `rs0`, with transactions. `standalone`: no
 * replica set, so no transactions. jongodb's transactions do not detect write conflicts and can
 * lose concurrent commits, so concurrency-heavy suites run on `standalone`.
 */
export type JongodbTopology = "replicaSet" | "standalone";

/**
 * jongodb answers the driver's streaming `hello` wrongly, so the driver marks it unknown, clears
 * its pool and stalls 500 ms every few seconds; polling monitoring avoids that. It goes in the
 * URI so every client made from it gets it.
 */
function withPollingMonitor(uri: string): string {
  const url = new URL(uri);
  url.searchParams.set("serverMonitoringMode", "poll");
  return url.toString();
}

function launch(
  port: number,
  topology: JongodbTopology,
): Promise<{ proc: ManagedProcess; uri: string }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const args = ["--host=127.0.0.1", `--port=${port}`];
    if (topology === "replicaSet") {
      args.push("--topology-profile=singleNodeReplicaSet", "--replica-set-name=rs0");
    } else {
      args.push("--topology-profile=standalone");
    }
    const proc: ManagedProcess = new ManagedProcess(jongodbBinaryPath(), args, {
      onStdoutLine: (line) => {
        const m = /^JONGODB_URI=(\S+)/.exec(line.trim());
        if (!m || settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ proc, uri: withPollingMonitor(m[1]!) });
      },
    });
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      proc.signalGroup("SIGKILL");
      reject(new Error(`jongodb (port ${port}): ${why}. Output tail:\n${proc.logTail()}`));
    };
    const timer = setTimeout(
      () => fail(`no JONGODB_URI line within ${READY_DEADLINE_MS / 1000}s`),
      READY_DEADLINE_MS,
    );
    void proc.exited.then((e) => fail(`exited before ready (${e.code ?? e.signal})`));
  });
}

class Jongodb implements MongoServer {
  #proc: ManagedProcess | null;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    proc: ManagedProcess,
    readonly uri: string,
    readonly port: number,
    readonly topology: JongodbTopology,
  ) {
    this.#proc = proc;
  }

  logs(): string {
    return this.#proc?.logTail(16_000) ?? "";
  }

  #serial(op: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(op, op);
    this.#queue = next.catch(() => {});
    return next;
  }

  stop(): Promise<void> {
    return this.#serial(async () => {
      await this.#proc?.terminate("SIGTERM", 10_000);
    });
  }

  kill(): Promise<void> {
    return this.#serial(async () => {
      await this.#proc?.terminate("SIGKILL", 0);
    });
  }

  start(): Promise<void> {
    return this.#serial(async () => {
      if (this.#proc && !this.#proc.exitInfo) return;
      // The port was just released; retry briefly in case the OS has not freed it yet.
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          this.#proc = (await launch(this.port, this.topology)).proc;
          return;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    });
  }
}

/**
 * Starts jongodb (an in-memory MongoDB wire-protocol server, native binary from
 * `@jongodb/memory-server-bin-linux-x64-gnu`) on 127.0.0.1 with a free port, as a single-node
 * replica set `rs0` (so transactions work). Resolves once it prints its `JONGODB_URI=` line.
 */
export async function startJongodb(
  options: { topology?: JongodbTopology } = {},
): Promise<MongoServer> {
  const topology = options.topology ?? "replicaSet";
  const { proc, uri } = await launch(0, topology);
  const port = Number(new URL(uri).port);
  if (!Number.isInteger(port) || port <= 0) {
    await proc.terminate("SIGKILL", 0);
    throw new Error(`jongodb: cannot parse the port from its uri ${uri}`);
  }
  return new Jongodb(proc, uri, port, topology);
}
