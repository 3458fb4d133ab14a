import type { Json, JsonObject } from "../models/json.js";

/** JSON equality: same type and value, arrays element by element, objects key by key in any order. */
export function jsonEquals(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEquals(v, b[i]!));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && jsonEquals(a[k]!, b[k]!));
}

/**
 * `listCheckpoints`' metadata filter: every key of `filter` is in `metadata` with an equal value
 * ({@link jsonEquals}). `{}` matches every checkpoint. The reference for adapters.
 */
export function matchesMetadata(metadata: JsonObject, filter: JsonObject): boolean {
  for (const key of Object.keys(filter)) {
    if (!Object.hasOwn(metadata, key) || !jsonEquals(metadata[key]!, filter[key]!)) return false;
  }
  return true;
}
