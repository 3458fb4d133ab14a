import { MessageStore, type StoreCapabilities } from "@message-store/core";
import { DRIVER_OPERATIONS, type MessageStoreDriver } from "@message-store/core/adapter";
import { MemoryDriver, MemoryState } from "@message-store/core/memory";

/** What a planted bug is written with. */
export interface PlantContext {
  /** The planted store, for a bug that reads through the API. */
  self(): MessageStore;
  /** The reference driver's own methods. */
  original: MessageStoreDriver;
  /** The reference driver's records, for a bug that corrupts what a correct write did. */
  state: MemoryState;
}

/** A driver's methods as a plain object, bound to it (a class keeps them on its prototype). */
function methodsOf(driver: MessageStoreDriver): MessageStoreDriver {
  const methods: Record<string, unknown> = { name: driver.name, capabilities: driver.capabilities };
  for (const key of [...DRIVER_OPERATIONS, "close", "mapError"] as const) {
    const method = driver[key];
    if (typeof method === "function") methods[key] = method.bind(driver);
  }
  return methods as unknown as MessageStoreDriver;
}

/**
 * A store over core's `MemoryDriver` with some methods replaced: a planted bug, as a
 * third-party driver could have it (`{ ...driver methods, getImmediateContext: buggy }`), and
 * optionally other capabilities.
 */
export async function planted(
  patch: (ctx: PlantContext) => Partial<MessageStoreDriver>,
  capabilities?: Partial<StoreCapabilities>,
): Promise<MessageStore> {
  const state = new MemoryState();
  const original = methodsOf(new MemoryDriver({ state }));
  const driver = {
    ...original,
    capabilities: { ...original.capabilities, ...capabilities },
  } as MessageStoreDriver;
  const store: MessageStore = new MessageStore({
    ...driver,
    ...patch({ self: () => store, original, state }),
  });
  return store;
}

export const withoutKey = <T extends object, K extends keyof T>(o: T, key: K): Omit<T, K> => {
  const { [key]: _dropped, ...rest } = o;
  return rest;
};
