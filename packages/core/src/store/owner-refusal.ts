import { IntegrityError, NotFoundError } from "../errors.js";

/** The kinds of record a write can name. */
export type RecordKind = "conversation" | "message" | "turn trace";

/** Marks refusals across copies of core (a driver may be built against another copy). */
const REFUSED = Symbol.for("@message-store/core/owner-refusal");

interface Refused {
  readonly record: RecordKind;
  readonly id: string;
}

/**
 * The `IntegrityError` a driver throws when a write names a conversation (or, for a trace, a
 * message) that does not exist, or a record (conversation, message or trace id) stored under
 * another owner than the written record's. Unscoped, the caller gets it as it is. Through a view, core answers
 * `NotFoundError: <record> "<id>" does not exist` instead, worded exactly as for a record that
 * does not exist, so a view learns nothing about other owners' records.
 */
export function ownerRefusal(message: string, record: RecordKind, id: string): IntegrityError {
  const error = new IntegrityError(message);
  Object.defineProperty(error, REFUSED, { value: { record, id } satisfies Refused });
  return error;
}

/** The `NotFoundError` a view answers for a record outside it (or missing). */
export function notFound(record: RecordKind, id: string, adapter: string): NotFoundError {
  return new NotFoundError(`${record} ${JSON.stringify(id)} does not exist`, { adapter });
}

/** What a view answers for `error`, thrown by a write: `NotFoundError` for an owner refusal. */
export function asViewRefusal(error: unknown, adapter: string): unknown {
  const refused = (error as { [REFUSED]?: Refused } | null)?.[REFUSED];
  return refused ? notFound(refused.record, refused.id, adapter) : error;
}
