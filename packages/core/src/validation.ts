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
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  adapter?: string,
): z.output<S> {
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

/** Validates an id argument (1–256 characters, a string). Throws {@link ValidationError}. */
export function parseId(value: unknown, what: string, adapter?: string): string {
  return parseInput(IdSchema, value, what, adapter);
}
