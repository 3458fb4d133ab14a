import type { Json } from "@message-store/core";

/**
 * Escape character (Unicode private use U+E000) that starts every escape sequence in a stored
 * key. MongoDB restricts `$` and `.` in field names (update operators treat them as paths or
 * operators), BSON cannot hold NUL in a key, and some tools reject empty names, so free-form JSON
 * keys are escaped reversibly: `$` → ESC d, `.` → ESC p, NUL → ESC 0, ESC itself → ESC e, and the
 * empty key → a lone ESC. Keys without those characters are stored unchanged.
 */
export const KEY_ESCAPE = "\uE000";

/**
 * Marker key of an object that holds a JSON subtree as text. MongoDB accepts at most 100 levels
 * of nesting, so containers deeper than {@link MAX_STORED_DEPTH} are stored as
 * `{ "\uE000j": "<JSON text>" }`. No escaped key can equal it (ESC is only followed by d, p, 0, e).
 * Core rejects JSON nested deeper than 64 levels, and the deepest free-form field sits at level 4,
 * so valid records never reach the limit; the marker only guards against a looser core.
 */
export const JSON_TEXT_KEY = `${KEY_ESCAPE}j`;

/** Deepest document level (the document itself is level 1) kept as a native BSON container. */
export const MAX_STORED_DEPTH = 90;

const SPECIAL = /[$.\u0000\uE000]/;
const SPECIAL_ALL = /[$.\u0000\uE000]/g;
const ESCAPES: Record<string, string> = {
  $: `${KEY_ESCAPE}d`,
  ".": `${KEY_ESCAPE}p`,
  "\u0000": `${KEY_ESCAPE}0`,
  [KEY_ESCAPE]: `${KEY_ESCAPE}e`,
};
const UNESCAPES: Record<string, string> = { d: "$", p: ".", "0": "\u0000", e: KEY_ESCAPE };

/** A stored key or value that the codec cannot have written. */
export class KeyCodecError extends Error {}

/** Escapes one JSON object key for storage. */
export function encodeKey(key: string): string {
  if (key === "") return KEY_ESCAPE;
  return SPECIAL.test(key) ? key.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : key;
}

/** Reverses {@link encodeKey}. Throws {@link KeyCodecError} for a key it cannot have produced. */
export function decodeKey(key: string): string {
  if (!key.includes(KEY_ESCAPE)) return key;
  if (key === KEY_ESCAPE) return "";
  let out = "";
  for (let i = 0; i < key.length; i++) {
    const c = key[i]!;
    if (c !== KEY_ESCAPE) {
      out += c;
      continue;
    }
    const original = UNESCAPES[key[i + 1] ?? ""];
    if (original === undefined)
      throw new KeyCodecError(`invalid escape in key ${JSON.stringify(key)}`);
    out += original;
    i++;
  }
  return out;
}

/** Assigns without invoking the `__proto__` setter, so such a key stays an own property. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * Encodes a free-form JSON value for storage: escapes every object key and turns containers
 * deeper than {@link MAX_STORED_DEPTH} into JSON text. `depth` is the document level at which
 * `value` sits (a top-level field's value is at level 2).
 */
export function encodeJson(value: Json, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_STORED_DEPTH) return { [JSON_TEXT_KEY]: JSON.stringify(value) };
  if (Array.isArray(value)) return value.map((v) => encodeJson(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) put(out, encodeKey(k), encodeJson(v, depth + 1));
  return out;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Reverses {@link encodeJson}. Values that are not plain JSON containers (a BSON `Date` written
 * by another tool, say) are returned as they are, so model validation reports them.
 * Throws {@link KeyCodecError} for keys or markers the codec cannot have written.
 */
export function decodeJson(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decodeJson);
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === JSON_TEXT_KEY) {
    const text = value[JSON_TEXT_KEY];
    if (typeof text !== "string")
      throw new KeyCodecError("JSON text marker does not hold a string");
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new KeyCodecError(`JSON text marker does not hold JSON: ${(error as Error).message}`);
    }
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) put(out, decodeKey(k), decodeJson(value[k]));
  return out;
}
