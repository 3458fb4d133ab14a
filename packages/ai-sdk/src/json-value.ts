import { type Json, type JsonObject, ValidationError } from "@message-store/core";

/**
 * `value` as it would travel over the wire: `JSON.parse(JSON.stringify(value))`, so `undefined`
 * properties disappear and dates become strings, exactly as the AI SDK's own persistence guide
 * stores them. `undefined` itself becomes `null`. Throws `ValidationError` for values JSON cannot
 * hold (cycles, BigInt).
 */
export function toJson(value: unknown, what: string): Json {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as Json;
  } catch (error) {
    throw new ValidationError(`${what} is not JSON: ${(error as Error).message}`, [], {
      adapter: "ai-sdk",
      cause: error,
    });
  }
}

/** True for a JSON object (not an array, not null). */
export function isJsonObject(value: Json): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The parsed value when `text` is a JSON object or array, else `undefined` (core's replay rule). */
export function parseStructuredJson(text: string): Json | undefined {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}
