import { run } from "./program.js";

/**
 * @internal Runs the `message-store` command in this process (what the package's bin does):
 * the process's streams and environment, then exits with the command's code.
 */
export async function main(): Promise<void> {
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
