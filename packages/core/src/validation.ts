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
 * and the first failing path; never returns partially valid data.
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
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at ${first.path.join(".")}` : "";
  const more = issues.length > 1 ? ` (+${issues.length - 1} more issue(s))` : "";
  throw new ValidationError(
    `invalid ${what}${where}: ${first?.message ?? "invalid"}${more}`,
    issues,
    {
      adapter,
    },
  );
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
