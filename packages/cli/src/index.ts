#!/usr/bin/env node
/**
 * `@message-store/cli`: the `message-store` command (stats, show, traces, export, import,
 * migrate, embed). Importing the package gives the program builder; running the file runs it.
 * @packageDocumentation
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type CliIo, createProgram, run } from "./program.js";

export { ExitCode } from "./cli-errors.js";
export {
  describeStore,
  loadConfigFile,
  parseStoreSpec,
  type StoreConfigObject,
} from "./store-spec.js";
export { type CliIo, createProgram, run };

function isMain(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  // `message-store export | head` closes the pipe early; that is not an error. The command stops
  // at its next write (OutputClosedError) and closes its store, releasing the lock; the timer
  // only ends a command that would not stop.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    setTimeout(() => process.exit(0), 10_000).unref();
  });
  const code = await run(process.argv, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
  // Exit once output is flushed, even if a driver left a timer or socket behind.
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}
