import type { z } from "zod";
import { ValidationError, type ValidationIssue } from "./errors.js";
import { IdSchema } from "./models/primitives.js";

function toIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    message: i.message,
    code: i.code,
  }));
}

/**
 * Parses `value` with `schema`, filling defaults. Throws {@link ValidationError} naming `what`
 * and listing the issues with their paths (see {@link describeIssues}); never returns partially
 * valid data.
 *
 * `fast`, when given, is a structural check that returns exactly what the schema would (see
 * `canonical/`) or `undefined` when it cannot tell; the schema runs only then.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  adapter?: string,
  fast?: (value: unknown) => z.output<S> | undefined,
): z.output<S> {
  if (fast) {
    const done = fast(value);
    if (done !== undefined) return done;
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toIssues(result.error);
  throw new ValidationError(`invalid ${what}: ${describeIssues(issues)}`, issues, { adapter });
}

/** How many issues a message spells out; the rest are counted. */
const LISTED_ISSUES = 3;

/**
 * `path: message; path: message; …` for the first {@link LISTED_ISSUES} issues, then how many
 * more there are (all of them stay in `ValidationError.issues`). A root-level issue has no path.
 */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  if (issues.length === 0) return "invalid";
  const listed = issues
    .slice(0, LISTED_ISSUES)
    .map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message));
  const rest = issues.length - listed.length;
  return `${listed.join("; ")}${rest > 0 ? `; and ${rest} more issue${rest === 1 ? "" : "s"}` : ""}`;
}

/** `IdSchema`'s rules without zod's overhead (on every read, zod's ~1 µs was a fifth of the JSON store's in-memory read). */
const fastId = (v: unknown): string | undefined =>
  typeof v === "string" && v.length >= 1 && v.length <= 256 && v.isWellFormed() ? v : undefined;

/** Validates an id argument (1–256 characters, a string). Throws {@link ValidationError}. */
export function parseId(value: unknown, what: string, adapter?: string): string {
  return parseInput(IdSchema, value, what, adapter, fastId);
}

/** Throws {@link ValidationError} when two items of a batch have the same `id`. */
export function rejectDuplicateIds(
  items: readonly { id: string }[],
  what: string,
  adapter?: string,
): void {
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (seen.has(item.id)) {
      throw new ValidationError(
        `invalid ${what} at ${i}.id: id ${JSON.stringify(item.id)} appears twice in the batch`,
        [{ path: [i, "id"], message: "duplicate id in batch" }],
        { adapter },
      );
    }
    seen.add(item.id);
  }
}
