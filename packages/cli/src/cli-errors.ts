import { isMessageStoreError, redactSecrets } from "@message-store/core";

/** Process exit codes of the `message-store` binary. */
export const ExitCode = {
  ok: 0,
  /** The command ran and failed: unreachable store, integrity error, verification mismatch. */
  failure: 1,
  /** The command line (or a config file it names) is wrong. */
  usage: 2,
} as const;

/** The invocation is wrong: bad flag value, unknown store spec, missing environment variable. Exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The command ran to the end but its outcome is a failure (e.g. a count mismatch). Exit 1. */
export class CommandFailedError extends Error {
  override name = "CommandFailedError";
}

/** The exit code an error thrown by a command maps to. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return ExitCode.usage;
  if (isMessageStoreError(error) && error.code === "CONFIGURATION") return ExitCode.usage;
  return ExitCode.failure;
}

/**
 * One or more lines describing `error` for the terminal, scrubbed of passwords: the message and
 * the cause chain; with `debug`, stacks instead of messages.
 */
export function describeError(error: unknown, debug = false): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const text =
      current instanceof Error ? (debug && current.stack) || current.message : String(current);
    // A cause whose message is already part of its parent's adds nothing.
    if (depth === 0 || !lines.some((line) => line.includes(text))) {
      lines.push(depth === 0 ? text : `  caused by: ${text}`);
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return redactSecrets(lines.join("\n"));
}
