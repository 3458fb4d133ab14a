import type { Message } from "../models/message.js";
import type { TurnTrace } from "../models/turn-trace.js";
import { canonicalMessage } from "./canonical-message.js";
import { canonicalList } from "./canonical-object.js";
import { canonicalTurnTrace } from "./canonical-turn-trace.js";
import { isPlainObject } from "./json-checks.js";

/** Most messages one `storeMessages` call takes (and traces one `storeTurnTraces` call). */
export const MAX_BATCH = 100_000;
/** Largest `n` of `getImmediateContext`. */
export const MAX_CONTEXT = 1_000_000;

// Input fast paths for `MessageStore`: each returns a new record exactly as the schema would, or
// `undefined`, and then zod runs and names the problem. See `canonical-message.ts` for why.

export const fastMessage = (v: unknown): Message | undefined => canonicalMessage(v, true);

export const fastTrace = (v: unknown) => canonicalTurnTrace(v, true);

export const fastTraceBatch = (v: unknown): TurnTrace[] | undefined =>
  Array.isArray(v) && v.length <= MAX_BATCH
    ? (canonicalList(v, fastTrace, true) as TurnTrace[] | undefined)
    : undefined;

export const fastBatch = (v: unknown): Message[] | undefined =>
  Array.isArray(v) && v.length <= MAX_BATCH
    ? (canonicalList(v, fastMessage, true) as Message[] | undefined)
    : undefined;

// The arguments of the hottest read: zod's ~1 µs was a fifth of the JSON store's in-memory
// `getImmediateContext`.

export const fastContextSize = (n: unknown): number | undefined =>
  Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= MAX_CONTEXT
    ? (n as number)
    : undefined;

/** `{}` for an empty options object (the usual call), else `undefined`. */
export const fastNoOptions = (o: unknown): Record<string, never> | undefined => {
  if (!isPlainObject(o)) return undefined;
  for (const _ in o) return undefined;
  return {};
};
