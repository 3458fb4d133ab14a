import { z } from "zod";

/** Any value that survives `JSON.parse(JSON.stringify(x))` unchanged. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

interface JsonProblem {
  path: (string | number)[];
  message: string;
}

/** Deepest nesting accepted in a JSON value, so every backend (MongoDB stops at 100 levels per document) stores it alike. */
export const MAX_JSON_DEPTH = 64;

interface Frame {
  value: unknown;
  key: string | number | null;
  parent: Frame | null;
  depth: number;
  /** Set on the marker frame that takes an object off the current path once its children are done. */
  exit?: object;
}

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) path.push(f.key);
  return path.reverse();
}

function problemOf(value: unknown, depth: number): string | null {
  if (value === null || typeof value === "boolean") return null;
  if (typeof value === "string")
    return value.isWellFormed() ? null : "string contains a lone surrogate (not valid Unicode)";
  if (typeof value === "number")
    return Number.isFinite(value) ? null : `${value} is not a JSON number`;
  if (typeof value !== "object") return `a ${typeof value} is not JSON`;
  if (depth >= MAX_JSON_DEPTH) return `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
  if (Array.isArray(value)) return null;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null)
    return `${proto?.constructor?.name ?? "object"} is not a plain JSON object`;
  return null;
}

/**
 * Finds the first reason `value` is not JSON, or null. Iterative with parent links, so deep or
 * wide values cost linear time and memory. Rejects cycles, non-finite numbers, lone surrogates,
 * non-plain objects, nesting deeper than {@link MAX_JSON_DEPTH} and `__proto__` keys (which some
 * parsers and zod drop silently, so they could not round-trip everywhere).
 */
export function findJsonProblem(value: unknown): JsonProblem | null {
  const onPath = new Set<object>();
  const stack: Frame[] = [{ value, key: null, parent: null, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.exit) {
      onPath.delete(frame.exit);
      continue;
    }
    const v = frame.value;
    const message = problemOf(v, frame.depth);
    if (message) return { path: pathOf(frame), message };
    if (typeof v !== "object" || v === null) continue;
    if (onPath.has(v)) return { path: pathOf(frame), message: "cyclic reference is not JSON" };
    onPath.add(v);
    stack.push({ value: undefined, key: null, parent: null, depth: 0, exit: v });
    const depth = frame.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], key: i, parent: frame, depth });
      continue;
    }
    for (const key of Object.keys(v)) {
      const child = (v as Record<string, unknown>)[key];
      const at: Frame = { value: child, key, parent: frame, depth };
      if (!key.isWellFormed())
        return { path: pathOf(at), message: "key contains a lone surrogate" };
      if (key === "__proto__")
        return { path: pathOf(at), message: "__proto__ is not allowed as a key" };
      if (child === undefined) return { path: pathOf(at), message: "undefined is not JSON" };
      stack.push(at);
    }
  }
  return null;
}

function refineJson(value: unknown, ctx: z.RefinementCtx): void {
  const problem = findJsonProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: problem.path });
}

/** Any JSON value. */
export const JsonSchema: z.ZodType<Json> = z
  .unknown()
  .superRefine(refineJson) as unknown as z.ZodType<Json>;

/** A JSON object (`Record<string, Json>`). */
export const JsonObjectSchema: z.ZodType<JsonObject> = z.unknown().superRefine((value, ctx) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: "custom", message: "expected a JSON object" });
    return;
  }
  refineJson(value, ctx);
}) as unknown as z.ZodType<JsonObject>;
