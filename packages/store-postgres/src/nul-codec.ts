import { ValidationError } from "@message-store/core";

/**
 * PostgreSQL rejects U+0000 in `text` and `jsonb`, but users' tool output contains it. Every string
 * written (values, ids and JSON object keys) goes through a reversible escape that uses U+0001 as
 * the escape character:
 *
 * - U+0000 → U+0001 U+0001
 * - U+0001 → U+0001 U+0002
 *
 * The escape is prefix-free and keeps code-point (= UTF-8 byte, = `COLLATE "C"`) order, so ids
 * still sort exactly as `compareIds` sorts them, and equality is unchanged. Strings without either
 * character (nearly all) are left alone after one regex test.
 */

const NEEDS_ENCODING = /[\u0000\u0001]/;
const ENCODE = /[\u0000\u0001]/g;
const DECODE = /\u0001([\u0001\u0002])/g;
/** What `JSON.stringify` writes for U+0000 or U+0001 (and, rarely, a literal backslash-u). */
const JSON_ESCAPED = /\\u000[01]/;
/** A prefix every match of {@link JSON_ESCAPED} starts with, for a fast `includes` pre-check. */
const JSON_ESCAPE_PREFIX = "\\u000";
/** How PostgreSQL's JSON output writes U+0001 (again a superset: a false hit only costs a walk). */
const JSON_ESCAPE_CHAR = "\\u0001";

/** Escapes U+0000 and U+0001 in one string. */
export function encodeText(text: string): string {
  if (!NEEDS_ENCODING.test(text)) return text;
  return text.replace(ENCODE, (c) => (c === "\u0000" ? "\u0001\u0001" : "\u0001\u0002"));
}

/** Inverse of {@link encodeText}. A lone U+0001 (never written by this codec) is kept as is. */
export function decodeText(text: string): string {
  if (!text.includes("\u0001")) return text;
  return text.replace(DECODE, (_, c: string) => (c === "\u0001" ? "\u0000" : "\u0001"));
}

/** Nullable variant of {@link encodeText}, for optional columns. */
export function encodeNullable(text: string | null): string | null {
  return text === null ? null : encodeText(text);
}

/** Nullable variant of {@link decodeText}. */
export function decodeNullable(text: string | null): string | null {
  return text === null ? null : decodeText(text);
}

function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    // defineProperty keeps a "__proto__" key an own property, as JSON.parse makes it.
    Object.defineProperty(out, map(key), {
      value: mapStrings(child, map),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Applies {@link encodeText} to every string and object key inside a JSON value. */
export function encodeJson(value: unknown): unknown {
  return mapStrings(value, encodeText);
}

/** Applies {@link decodeText} to every string and object key inside a JSON value. */
export function decodeJson(value: unknown): unknown {
  return mapStrings(value, decodeText);
}

/**
 * Serialises a JSON value for a `jsonb` parameter, escaping NUL where present. The common case
 * costs one `JSON.stringify` and one regex test. A value whose JSON would exceed JavaScript's
 * longest string (about 512 MiB; `RangeError: Invalid string length`) is a `ValidationError`,
 * before anything is sent.
 */
export function toJsonParam(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    // `includes` first: on a 500-message batch the regex alone took 1.4 ms, `includes` 4 µs.
    return text.includes(JSON_ESCAPE_PREFIX) && JSON_ESCAPED.test(text)
      ? JSON.stringify(encodeJson(value))
      : text;
  } catch (error) {
    if (!(error instanceof RangeError && /string length/i.test(error.message))) throw error;
    throw new ValidationError(
      "input too large: its JSON would exceed JavaScript's longest string (about 512 MiB), and PostgreSQL takes at most 256 MiB of JSON in one value; nothing was stored, split the batch",
      [{ path: [], message: "too large to send", code: "too_big" }],
      { cause: error },
    );
  }
}

/** Parses `json`/`jsonb` text as PostgreSQL returns it, undoing the escape where present. */
export function parseJsonColumn(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return text.includes(JSON_ESCAPE_CHAR) ? decodeJson(value) : value;
}
