import { MAX_JSON_DEPTH } from "../models/json.js";

/**
 * Predicates with exactly the meaning of core's zod primitives (`TextSchema`, `IdSchema`,
 * `TimestampSchema`, `JsonSchema` …), for the structural fast path in this folder.
 */

export type Obj = Record<string, unknown>;

export const isText = (v: unknown): v is string => typeof v === "string" && v.isWellFormed();
export const isNonEmptyText = (v: unknown): boolean => isText(v) && v.length > 0;
export const isId = (v: unknown): boolean => isText(v) && v.length >= 1 && v.length <= 256;
export const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
export const isNonNegative = (v: unknown): boolean => Number.isFinite(v) && (v as number) >= 0;
export const isInteger = (v: unknown): boolean => Number.isSafeInteger(v);

/** A plain object: what zod's object schemas and `findJsonProblem` accept without doubt. */
export function isPlainObject(v: unknown): v is Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function isTextList(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const item of v) if (!isText(item)) return false;
  return true;
}

/**
 * What `findJsonProblem` accepts. Recursive, but bounded by {@link MAX_JSON_DEPTH}: a cycle or
 * deeper nesting answers `false`, and the caller's schema then names the problem.
 */
export function isJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
      return value.isWellFormed();
    case "number":
      return Number.isFinite(value);
    case "boolean":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    // Index loop, not for…of: a hole must read as `undefined` (not JSON), as the schema sees it.
    for (let i = 0; i < value.length; i++) if (!isJson(value[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (key === "__proto__" || !key.isWellFormed()) return false;
    if (!isJson((value as Obj)[key], depth + 1)) return false;
  }
  return true;
}

export const isJsonObject = (v: unknown): boolean => isPlainObject(v) && isJson(v, 0);

export function isJsonObjectList(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!isJsonObject(v[i])) return false;
  return true;
}
