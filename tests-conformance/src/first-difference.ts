import { expect } from "vitest";

function preview(value: unknown, max = 120): string {
  if (typeof value === "bigint") return `${value}n`;
  if (value === undefined) return "undefined";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

/**
 * Where `actual` first differs from `expected` (same own keys, same values by `Object.is`,
 * recursively), or `null` when they are equal. Keeps failure messages short for huge values.
 */
export function firstDifference(actual: unknown, expected: unknown, path = "$"): string | null {
  if (Object.is(actual, expected)) return null;
  if (
    typeof actual === "string" &&
    typeof expected === "string" &&
    (actual.length > 80 || expected.length > 80)
  ) {
    let i = 0;
    while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
    return `${path}: strings differ at index ${i} (lengths ${actual.length} vs expected ${expected.length}): got ${preview(actual.slice(i, i + 40))}, expected ${preview(expected.slice(i, i + 40))}`;
  }
  if (
    typeof actual !== "object" ||
    actual === null ||
    typeof expected !== "object" ||
    expected === null
  ) {
    return `${path}: got ${preview(actual)}, expected ${preview(expected)}`;
  }
  if (Array.isArray(actual) !== Array.isArray(expected)) {
    return `${path}: got ${preview(actual)}, expected ${preview(expected)}`;
  }
  if (Array.isArray(actual) && Array.isArray(expected) && actual.length !== expected.length) {
    const where = firstDifference(
      actual.slice(0, Math.min(actual.length, expected.length)),
      expected.slice(0, Math.min(actual.length, expected.length)),
      path,
    );
    return `${path}: length ${actual.length}, expected ${expected.length}${where ? ` (first difference ${where})` : ""}: got ${preview(actual, 600)}, expected ${preview(expected, 600)}`;
  }
  for (const key of Object.keys(expected)) {
    if (!hasOwn(actual, key)) return `${path}[${JSON.stringify(key)}]: missing`;
  }
  for (const key of Object.keys(actual)) {
    if (!hasOwn(expected, key)) return `${path}[${JSON.stringify(key)}]: unexpected key`;
  }
  for (const key of Object.keys(expected)) {
    const a = (actual as Record<string, unknown>)[key];
    const e = (expected as Record<string, unknown>)[key];
    const d = firstDifference(
      a,
      e,
      `${path}[${Array.isArray(expected) ? key : JSON.stringify(key)}]`,
    );
    if (d) return d;
  }
  return null;
}

/** Asserts deep equality with a short message naming the first difference. */
export function expectSame(actual: unknown, expected: unknown, label: string): void {
  const difference = firstDifference(actual, expected, label);
  expect(difference, difference ?? "").toBeNull();
}

/** Fields whose value is free-form JSON: compared exactly, never as a subset. */
const JSON_FIELDS = new Set([
  "metadata",
  "arguments",
  "result",
  "finalData",
  "slotEvents",
  "flowEvents",
  "errors",
]);

function fieldsKept(actual: unknown, input: unknown, path: string): string | null {
  if (Array.isArray(input) && Array.isArray(actual)) {
    if (actual.length !== input.length)
      return `${path}: length ${actual.length}, expected ${input.length}`;
    for (const [i, item] of input.entries()) {
      const d = fieldsKept(actual[i], item, `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const isRecord = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isRecord(input) || !isRecord(actual)) return firstDifference(actual, input, path);
  for (const key of Object.keys(input as object)) {
    const a = (actual as Record<string, unknown>)[key];
    const e = (input as Record<string, unknown>)[key];
    const where = `${path}.${key}`;
    if (!hasOwn(actual as object, key)) return `${where}: missing`;
    const d = JSON_FIELDS.has(key) ? firstDifference(a, e, where) : fieldsKept(a, e, where);
    if (d) return d;
  }
  return null;
}

/**
 * Asserts that every field given in `input` reads back unchanged in `actual` (a model record,
 * which may add defaults). Inside JSON fields (metadata, arguments, …) the comparison is exact.
 */
export function expectFieldsKept(actual: object, input: object, label: string): void {
  const difference = fieldsKept(actual, input, label);
  expect(difference, difference ?? "").toBeNull();
}
