/**
 * A value shared by every copy of this package loaded in the process (a bundler or a nested
 * install may load two): the registry of open stores and held locks must be one.
 */
export function processWide<T>(name: string, create: () => T): T {
  const global = globalThis as Record<symbol, unknown>;
  const key = Symbol.for(`@message-store/json/${name}`);
  if (!(key in global)) global[key] = create();
  return global[key] as T;
}
