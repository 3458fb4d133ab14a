import { MESSAGE_FIELDS, type Message } from "../models/message.js";
import { fieldsOf } from "../models/model-field.js";
import { canonicalObject } from "./canonical-object.js";

const MESSAGE = fieldsOf(MESSAGE_FIELDS);

/**
 * The structural fast path of `MessageSchema`: the message exactly as the schema would output it
 * (values, defaults and key order), or `undefined` when it cannot tell — then run the schema,
 * which fills in or names the problem. It may be stricter than the schema, never looser (tested
 * against the schema over hundreds of mutations in `test/canonical/`).
 *
 * Why it exists: a zod parse costs ~2.5 µs per message and copies it; on reads that was a third
 * of an adapter's own CPU time, on a 500-message `storeMessages` 1.4 ms (BENCHMARKS.md, Findings).
 *
 * @param copy `false` (reads): a value that already is canonical is returned itself. `true`
 *   (input): always a new object whose arrays and nested model objects are new too; free-form
 *   JSON (`metadata`, tool `arguments`) is shared with the input, as the schema shares it.
 */
export function canonicalMessage(value: unknown, copy = false): Message | undefined {
  return canonicalObject(value, MESSAGE, copy) as Message | undefined;
}
