import { encodeText } from "./nul-codec.js";

/**
 * A JSON value as a `jsonb` column gives it back: every object's keys in jsonb's order (shorter
 * first, then byte by byte, compared as stored, i.e. NUL-escaped; see `nul-codec.ts`) and no
 * negative zero (jsonb keeps numbers as `numeric`, which has none). Everything else survives
 * jsonb unchanged: strings, and numbers (their shortest decimal is kept exactly). Returns `value`
 * itself when it already has that form, so the common case allocates nothing.
 *
 * A write returns the record it was given (reading it back would cost a round trip), so without
 * this its metadata and tool arguments came back in the caller's key order, and `-0` as `-0`,
 * while every later read has jsonb's: a cache keyed by the written record's JSON missed forever.
 * Chosen over storing `json` text, which keeps the caller's key order but not `-0` either (JSON
 * has none), and would need a migration rewriting every row and giving up jsonb's operators. The
 * walk costs about 1 µs per message whose JSON already has jsonb's order and 5 µs for one whose
 * keys must be reordered (a 4-key metadata and one tool call with arguments; measured on the
 * 2-core VM under load), against 300 µs or more for the write's round trips.
 */
export function jsonbForm(value: unknown): unknown {
  if (typeof value === "number") return Object.is(value, -0) ? 0 : value;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const formed = jsonbForm(item);
      if (!Object.is(formed, item)) {
        out ??= value.slice();
        out[i] = formed;
      }
    }
    return out ?? value;
  }
  const keys = Object.keys(value);
  const sorted = inJsonbOrder(keys);
  let changed = sorted !== keys;
  const values = sorted.map((k) => {
    const child = (value as Record<string, unknown>)[k];
    const formed = jsonbForm(child);
    if (!Object.is(formed, child)) changed = true;
    return formed;
  });
  if (!changed) return value;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < sorted.length; i++) {
    // defineProperty keeps a "__proto__" key an own property, as JSON.parse makes it.
    Object.defineProperty(out, sorted[i]!, {
      value: values[i],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * The keys in the order an object parsed from jsonb has them: jsonb's order, except that
 * JavaScript lists array-index keys (`"0"`, `"17"`) first, ascending, whatever the insertion
 * order (jsonb's order has them ascending among themselves too). `keys` itself when equal.
 */
function inJsonbOrder(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) {
    if (compareParsed(keys[i - 1]!, keys[i]!) > 0) return keys.slice().sort(compareParsed);
  }
  return keys;
}

function compareParsed(a: string, b: string): number {
  const ia = isArrayIndex(a);
  if (ia !== isArrayIndex(b)) return ia ? -1 : 1;
  return compareJsonbKeys(a, b);
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (!(first >= 48 && first <= 57)) return false; // not a digit: the common case, no regex
  return ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1;
}

/** Keys whose UTF-8 bytes are their UTF-16 code units and that the NUL escape leaves alone. */
const PLAIN = /^[\u0002-\u007f]*$/;

/** jsonb's key order: by UTF-8 length of the stored (NUL-escaped) key, then its bytes. */
function compareJsonbKeys(a: string, b: string): number {
  if (PLAIN.test(a) && PLAIN.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  const x = Buffer.from(encodeText(a));
  const y = Buffer.from(encodeText(b));
  return x.length - y.length || Buffer.compare(x, y);
}
