import type { Attributes } from "./span-like.js";

/** The value of the first of `names` present in `attributes`. */
export function firstOf(attributes: Attributes, names: readonly string[]): unknown {
  for (const name of names) {
    const value = attributes[name];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** A non-empty string attribute, else `undefined`. */
export function textOf(attributes: Attributes, names: readonly string[]): string | undefined {
  const value = firstOf(attributes, names);
  if (typeof value === "string") return value.length > 0 ? value : undefined;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A token count: a finite non-negative integer attribute, else 0 (counted by `bad`). */
export function countOf(attributes: Attributes, names: readonly string[], bad: () => void): number {
  const value = firstOf(attributes, names);
  if (value === undefined) return 0;
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) return n;
  bad();
  return 0;
}

/** A JSON attribute parsed (tool arguments and results are JSON text), else the raw value. */
export function jsonOf(attributes: Attributes, names: readonly string[]): unknown {
  const value = firstOf(attributes, names);
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** A list attribute as strings (`finish_reasons`), a single value as a one-item list. */
export function listOf(attributes: Attributes, names: readonly string[]): string[] {
  const value = firstOf(attributes, names);
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v) => v != null).map(String);
}
