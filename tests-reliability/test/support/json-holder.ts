import { type ChildProcess, spawn } from "node:child_process";
import { fixture } from "./child-process.js";

/** A child process running `fixtures/json-hold-open.mjs` on one store path. */
export interface Holder {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The child's status line: `open <pid>` or `error <code> <message>`. */
  readonly status: Promise<string>;
  /** Closes its stdin: the child closes the store cleanly and exits. */
  release(): Promise<void>;
  /** SIGKILLs it (its lock file stays behind, stale). */
  kill(): Promise<void>;
}

/** Starts a child that opens the JSON store at `path` (storing `conversationId` if given) and holds it. */
export function holdOpen(path: string, conversationId?: string): Holder {
  const args = [fixture("json-hold-open.mjs"), path];
  if (conversationId !== undefined) args.push(conversationId);
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  const status = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const newline = out.indexOf("\n");
      if (newline !== -1) resolve(out.slice(0, newline));
    });
    void exited.then(() => reject(new Error(`holder exited without a status line: ${stderr}`)));
  });
  status.catch(() => {});
  return {
    child,
    pid: child.pid ?? -1,
    status,
    async release() {
      child.stdin?.end();
      await exited;
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}
