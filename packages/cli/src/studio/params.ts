import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

/** A 400 answer naming the query parameter that is wrong. */
export function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/**
 * Refuses (415) a write whose body is not `application/json`: a cross-site page cannot send that
 * type without a CORS preflight, which the studio never answers, so a forged form post fails.
 */
export function requireJson(c: Context): void {
  if (!/^application\/json\b/i.test(c.req.header("content-type") ?? "")) {
    throw new HTTPException(415, { message: "send application/json" });
  }
}

/** An optional string query parameter (`undefined` when absent or empty). */
export function textParam(c: Context, name: string): string | undefined {
  const value = c.req.query(name);
  return value === undefined || value === "" ? undefined : value;
}

/** An optional integer query parameter within `[min, max]`; 400 otherwise. */
export function intParam(
  c: Context,
  name: string,
  range: { min: number; max: number },
): number | undefined {
  const raw = textParam(c, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw badRequest(`"${name}" must be an integer from ${range.min} to ${range.max}`);
  }
  return n;
}

/** `limit`: at most `max`, `fallback` when absent. */
export function limitParam(c: Context, fallback: number, max: number): number {
  return intParam(c, "limit", { min: 1, max }) ?? fallback;
}

/** `true` / `false`, or `undefined` when absent. */
export function boolParam(c: Context, name: string): boolean | undefined {
  const raw = textParam(c, name);
  if (raw === undefined) return undefined;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw badRequest(`"${name}" must be true or false`);
}

/** A time window `[since, until)` in epoch ms; `until` defaults to now, `since` to `until - fallbackMs`. */
export function windowParams(c: Context, fallbackMs: number): { since: number; until: number } {
  const until = intParam(c, "until", { min: 0, max: 8.64e15 }) ?? Date.now();
  const since = intParam(c, "since", { min: 0, max: 8.64e15 }) ?? until - fallbackMs;
  if (since >= until) throw badRequest(`"since" must be before "until"`);
  return { since, until };
}
