import {
  ConversationRecordSchema,
  CorruptDataError,
  TimestampSchema,
  ValidationError,
} from "@message-store/core";
import { parseInput } from "@message-store/core/adapter";
import { ADAPTER } from "./config.js";

/**
 * A conversation record as a journal line holds it (the derived `lastActivityAt` is not stored):
 * core's record schema, which fills the fields a record written before they existed lacks.
 */
export { ConversationRecordSchema };

/**
 * A conversation as the main file holds it. `lastMessageAt` may be omitted in a hand-written
 * file; loading then derives it from the messages.
 */
export const StoredConversationSchema = ConversationRecordSchema.extend({
  lastMessageAt: TimestampSchema.nullable().default(null),
});

/**
 * A `CorruptDataError` for data at `location`, saying that nothing was written. Raised while
 * opening, outside the hooks, so it names the adapter itself.
 */
export function corruptData(message: string, location: string): CorruptDataError {
  return new CorruptDataError(
    `${message} (at ${location}); the file was left untouched`,
    location,
    { adapter: ADAPTER },
  );
}

/** `what` plus the record's id when it has one, e.g. `messages[3] (id "m-1")`. */
export function describeRecord(what: string, value: unknown): string {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" ? `${what} (id ${JSON.stringify(id)})` : what;
}

/**
 * Validates a record read from disk with core's model. A failure is a `CorruptDataError`
 * naming the location and the first failing field. `canonical` (core's `canonicalMessage` & co.) is
 * the fast path: when it answers, its answer is what the schema would return.
 */
export function parseStored<S extends Parameters<typeof parseInput>[0]>(
  schema: S,
  value: unknown,
  what: string,
  location: string,
  canonical?: (value: Record<string, unknown>) => unknown,
): ReturnType<typeof parseInput<S>> {
  if (canonical && typeof value === "object" && value !== null && !Array.isArray(value)) {
    const fast = canonical(value as Record<string, unknown>);
    if (fast !== undefined) return fast as ReturnType<typeof parseInput<S>>;
  }
  try {
    return parseInput(schema, value, what);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const issue = error.issues[0];
    const field = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw corruptData(
      `${describeRecord(what, value)} does not match the model${field}: ${issue?.message ?? "invalid"}`,
      location,
    );
  }
}
