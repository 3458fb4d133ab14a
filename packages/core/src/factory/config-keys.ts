import type { z } from "zod";

interface Introspectable {
  shape?: Record<string, unknown>;
  _zod?: { def?: { innerType?: unknown; in?: unknown; schema?: unknown } };
}

/**
 * The keys an adapter's config schema accepts: the shape of its object, looked for through the
 * wrappers zod puts around it (refinements, pipes, defaults). Empty when there is no object.
 */
export function configKeys(schema: z.ZodType): string[] {
  let current = schema as unknown as Introspectable | undefined;
  for (let depth = 0; current && depth < 8; depth++) {
    if (current.shape && typeof current.shape === "object") return Object.keys(current.shape);
    const def = current._zod?.def;
    current = (def?.innerType ?? def?.in ?? def?.schema) as Introspectable | undefined;
  }
  return [];
}
