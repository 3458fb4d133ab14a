import { z } from "zod";

/** Any value that survives `JSON.parse(JSON.stringify(x))` unchanged. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

interface JsonProblem {
  path: (string | number)[];
  message: string;
}

/** Finds the first reason `value` is not JSON, or null. Iterative, so deep values cannot overflow the stack. */
export function findJsonProblem(value: unknown): JsonProblem | null {
  const onPath = new Set<object>();
  const stack: { value: unknown; path: (string | number)[]; exit?: object }[] = [
    { value, path: [] },
  ];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.exit) {
      onPath.delete(frame.exit);
      continue;
    }
    const { value: v, path } = frame;
    if (v === null || typeof v === "boolean") continue;
    if (typeof v === "string") {
      if (!v.isWellFormed())
        return { path, message: "string contains a lone surrogate (not valid Unicode)" };
      continue;
    }
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return { path, message: `${v} is not a JSON number` };
      continue;
    }
    if (typeof v !== "object") return { path, message: `a ${typeof v} is not JSON` };
    if (onPath.has(v)) return { path, message: "cyclic reference is not JSON" };
    const isArray = Array.isArray(v);
    if (!isArray) {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        return {
          path,
          message: `${proto?.constructor?.name ?? "object"} is not a plain JSON object`,
        };
      }
    }
    onPath.add(v);
    stack.push({ value: undefined, path, exit: v });
    if (isArray) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
    } else {
      for (const [key, child] of Object.entries(v)) {
        if (!key.isWellFormed())
          return { path: [...path, key], message: "key contains a lone surrogate" };
        if (child === undefined) return { path: [...path, key], message: "undefined is not JSON" };
        stack.push({ value: child, path: [...path, key] });
      }
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
export const JsonObjectSchema: z.ZodType<JsonObject> = z
  .record(z.string(), z.unknown())
  .superRefine(refineJson) as unknown as z.ZodType<JsonObject>;
