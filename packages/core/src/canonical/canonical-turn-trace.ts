import { fieldsOf } from "../models/model-field.js";
import { TURN_TRACE_FIELDS, type TurnTrace } from "../models/turn-trace.js";
import { canonicalObject } from "./canonical-object.js";

const TRACE = fieldsOf(TURN_TRACE_FIELDS);

/**
 * The structural fast path of `TurnTraceSchema`: the trace exactly as the schema would output it,
 * or `undefined` when it cannot tell (then run the schema). Same rules and `copy` meaning as
 * {@link canonicalMessage}.
 */
export function canonicalTurnTrace(value: unknown, copy = false): TurnTrace | undefined {
  return canonicalObject(value, TRACE, copy) as TurnTrace | undefined;
}
