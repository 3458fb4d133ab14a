import { inspect } from "node:util";

/**
 * Everything an error exposes to a logger: message, stack, `String(err)`, `util.inspect` (what
 * `console.error(err)` prints), `JSON.stringify` of its own properties, and the same for every
 * `cause` and `AggregateError` member, recursively.
 */
export function everythingIn(error: unknown, depth = 0, seen = new Set<unknown>()): string {
  if (error === null || error === undefined || depth > 8 || seen.has(error)) return "";
  seen.add(error);
  const parts: string[] = [String(error)];
  if (typeof error === "object") {
    const e = error as Error & { cause?: unknown; errors?: unknown[] };
    parts.push(e.message ?? "", e.stack ?? "", inspect(error, { depth: 10 }));
    try {
      parts.push(JSON.stringify(error, Object.getOwnPropertyNames(error)));
    } catch {
      // cyclic: inspect above already covered it
    }
    for (const name of Object.getOwnPropertyNames(error)) {
      const value = (error as Record<string, unknown>)[name];
      if (typeof value === "string") parts.push(value);
      else if (typeof value === "object" && value !== null)
        parts.push(everythingIn(value, depth + 1, seen));
    }
    if (Array.isArray(e.errors))
      for (const inner of e.errors) parts.push(everythingIn(inner, depth + 1, seen));
    parts.push(everythingIn(e.cause, depth + 1, seen));
  }
  return parts.join("\n");
}

/** What was written to the console, stdout, stderr or emitted as a process warning while capturing. */
export interface Capture {
  text(): string;
  restore(): void;
}

/** Captures console.*, process.stdout/stderr writes and process warnings until `restore()`. */
export function captureOutput(): Capture {
  const chunks: string[] = [];
  const record = (...args: unknown[]) => {
    chunks.push(args.map((a) => (typeof a === "string" ? a : inspect(a, { depth: 10 }))).join(" "));
  };
  const methods = ["log", "info", "warn", "error", "debug", "trace"] as const;
  const saved = methods.map((m) => console[m]);
  for (const m of methods) console[m] = record;
  const out = process.stdout.write;
  const err = process.stderr.write;
  const write = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  process.stdout.write = write as typeof process.stdout.write;
  process.stderr.write = write as typeof process.stderr.write;
  const onWarning = (w: Error) => record(w);
  process.on("warning", onWarning);
  return {
    text: () => chunks.join("\n"),
    restore() {
      methods.forEach((m, i) => {
        console[m] = saved[i]!;
      });
      process.stdout.write = out;
      process.stderr.write = err;
      process.off("warning", onWarning);
    },
  };
}
