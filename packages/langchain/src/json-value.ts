import { type Json, ValidationError } from "@message-store/core";

/**
 * `value` as JSON would carry it (`undefined` properties dropped, dates as strings); `undefined`
 * itself becomes `null`. Throws `ValidationError` for values JSON cannot hold (cycles, BigInt).
 */
export function toJson(value: unknown, what: string): Json {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as Json;
  } catch (error) {
    throw new ValidationError(`${what} is not JSON: ${(error as Error).message}`, [], {
      adapter: "langchain",
      cause: error,
    });
  }
}
