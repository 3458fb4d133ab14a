/**
 * Deep copy of a JSON value (plain objects, arrays, primitives). Records handed out or taken in
 * are copied so that a caller mutating them cannot change what the store holds. Faster than
 * `structuredClone` for this shape, and keeps `-0` and an own `"__proto__"` key.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = cloneJson((value as Record<string, unknown>)[key]);
    if (key === "__proto__") {
      // Plain assignment would set the prototype instead of creating the key.
      Object.defineProperty(out, key, {
        value: child,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else {
      out[key] = child;
    }
  }
  return out as T;
}
