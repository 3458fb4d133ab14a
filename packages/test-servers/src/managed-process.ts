import { spawn, spawnSync } from "node:child_process";
import { trackGroup, untrackGroup } from "./process-registry.js";

/** How a managed child ended. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Options for {@link spawnManaged}. */
export interface SpawnManagedOptions {
  /** Run as this user/group (needs root). */
  readonly uid?: number;
  readonly gid?: number;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Called for every complete stdout line. */
  readonly onStdoutLine?: (line: string) => void;
}

const LOG_LIMIT = 64 * 1024;
let setprivAvailable: boolean | undefined;

function hasSetpriv(): boolean {
  if (setprivAvailable === undefined) {
    const r = spawnSync("setpriv", ["--version"], { stdio: "ignore" });
    setprivAvailable = r.status === 0;
  }
  return setprivAvailable;
}

/**
 * A long-running child process in its own process group, with captured output, tracked so it is
 * SIGKILLed when this process exits. Where `setpriv` exists the child also gets
 * PR_SET_PDEATHSIG=SIGKILL, so it dies even if we are SIGKILLed ourselves.
 */
export class ManagedProcess {
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  #log = "";
  #exit: ExitInfo | null = null;

  constructor(command: string, args: readonly string[], opts: SpawnManagedOptions = {}) {
    const [cmd, argv] = hasSetpriv()
      ? ["setpriv", ["--pdeathsig=KILL", "--", command, ...args]]
      : [command, [...args]];
    const child = spawn(cmd, argv, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      uid: opts.uid,
      gid: opts.gid,
      detached: true, // own process group: kill(-pid) reaches the whole tree
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.exited = new Promise<ExitInfo>((resolve) => {
      child.once("error", (err) => {
        this.#append(`spawn error: ${err.message}\n`);
        if (child.pid === undefined) this.#finish({ code: null, signal: null }, resolve);
      });
      child.once("close", (code, signal) => this.#finish({ code, signal }, resolve));
    });
    this.pid = child.pid ?? -1;
    if (this.pid > 0) trackGroup(this.pid);
    let pending = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      this.#append(chunk);
      if (!opts.onStdoutLine) return;
      pending += chunk;
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? "";
      for (const line of lines) opts.onStdoutLine(line);
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => this.#append(chunk));
    // Never keep the event loop alive just for a server; the exit hook kills it.
    child.unref();
    for (const s of [child.stdout, child.stderr]) (s as { unref?: () => void } | null)?.unref?.();
  }

  #append(chunk: string): void {
    this.#log = (this.#log + chunk).slice(-LOG_LIMIT);
  }

  #finish(info: ExitInfo, resolve: (i: ExitInfo) => void): void {
    if (this.#exit) return;
    this.#exit = info;
    if (this.pid > 0) untrackGroup(this.pid);
    resolve(info);
  }

  /** Exit status once exited, else null. */
  get exitInfo(): ExitInfo | null {
    return this.#exit;
  }

  /** Last `maxChars` characters of combined stdout/stderr. */
  logTail(maxChars = 4000): string {
    return this.#log.slice(-maxChars);
  }

  /** Sends a signal to the process itself (not the group). No-op once exited. */
  signal(sig: NodeJS.Signals): void {
    if (this.#exit || this.pid <= 0) return;
    try {
      process.kill(this.pid, sig);
    } catch {
      // raced with exit
    }
  }

  /** Sends a signal to the whole process group. */
  signalGroup(sig: NodeJS.Signals): void {
    if (this.pid <= 0) return;
    try {
      process.kill(-this.pid, sig);
    } catch {
      this.signal(sig);
    }
  }

  /** Waits for exit up to `timeoutMs`; resolves null on timeout. Keeps the event loop alive. */
  async waitForExit(timeoutMs: number): Promise<ExitInfo | null> {
    if (this.#exit) return this.#exit;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((r) => {
      timer = setTimeout(() => r(null), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends `sig`, waits up to `graceMs`, then SIGKILLs the whole group and waits for exit.
   * No-op if already exited.
   */
  async terminate(sig: NodeJS.Signals, graceMs: number): Promise<ExitInfo> {
    if (this.#exit) return this.#exit;
    this.signal(sig);
    const info = await this.waitForExit(graceMs);
    if (info) return info;
    this.signalGroup("SIGKILL");
    return (await this.waitForExit(10_000)) ?? { code: null, signal: "SIGKILL" };
  }
}

/** Runs a command to completion, capturing output; rejects with the output on failure. */
export function runToCompletion(
  command: string,
  args: readonly string[],
  opts: SpawnManagedOptions & { timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      uid: opts.uid,
      gid: opts.gid,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: opts.timeoutMs ?? 120_000,
      killSignal: "SIGKILL",
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    child.once("error", (err) => reject(new Error(`${command} failed to start: ${err.message}`)));
    child.once("close", (code, signal) => {
      if (code === 0) resolve(out);
      else
        reject(
          new Error(
            `${command} ${args.join(" ")} exited with ${code ?? signal}:\n${out.slice(-4000)}`,
          ),
        );
    });
  });
}
