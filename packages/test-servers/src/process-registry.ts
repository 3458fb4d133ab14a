import { rmSync } from "node:fs";

/** Process groups (by leader pid) and directories to clean up if this process goes away. */
const liveGroups = new Set<number>();
const tempDirs = new Set<string>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let installed = false;

/** SIGKILLs every tracked process group and removes every tracked directory, synchronously. */
export function killAllSync(): void {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  liveGroups.clear();
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    } catch {
      // best effort
    }
  }
  tempDirs.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAllSync();
  // If nobody else handles this signal, restore the default behaviour (terminate).
  if (process.listenerCount(signal) === 1) {
    uninstall();
    process.kill(process.pid, signal);
  }
}

function uninstall(): void {
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.removeListener("exit", killAllSync);
  installed = false;
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", killAllSync);
  for (const s of SIGNALS) process.on(s, onSignal);
}

/** Tracks a child process group so it is SIGKILLed when this process exits or is signalled. */
export function trackGroup(pid: number): void {
  install();
  liveGroups.add(pid);
}

/** Stops tracking a process group (it has exited). */
export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}

/** Tracks a temporary directory so it is removed when this process exits or is signalled. */
export function trackDir(dir: string): void {
  install();
  tempDirs.add(dir);
}

/** Stops tracking a temporary directory (removed, or deliberately kept). */
export function untrackDir(dir: string): void {
  tempDirs.delete(dir);
}
