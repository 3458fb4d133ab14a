import type { z } from "zod";
import { ConfigurationError, isMessageStoreError } from "../errors.js";
import type { MessageStore } from "../message-store.js";
import {
  JsonConfigSchema,
  MongoConfigSchema,
  PostgresConfigSchema,
  type StoreConfig,
} from "./config.js";
import { loadAdapter } from "./load-adapter.js";

/** Opens a store from a config. Must resolve to a ready (connected, initialised) store. */
export type StorageFactory = (config: any) => Promise<MessageStore>;

interface BuiltIn {
  packageName: string;
  schema: z.ZodType;
}

/** Built-in adapters, loaded on demand so core never imports them statically. */
const BUILT_INS: Record<string, BuiltIn> = {
  json: { packageName: "@message-store/json", schema: JsonConfigSchema },
  postgres: { packageName: "@message-store/postgres", schema: PostgresConfigSchema },
  mongodb: { packageName: "@message-store/mongodb", schema: MongoConfigSchema },
};

const registry = new Map<string, StorageFactory>();

/**
 * Makes `MessageStore.initialize({ storage: name, … })` use `factory`. A registered name takes
 * precedence over a built-in one. Throws `ConfigurationError` for an empty name.
 */
export function registerStorage(name: string, factory: StorageFactory): void {
  if (typeof name !== "string" || name.length === 0)
    throw new ConfigurationError("storage name must be a non-empty string");
  if (typeof factory !== "function")
    throw new ConfigurationError(`factory for storage "${name}" must be a function`);
  registry.set(name, factory);
}

function describe(issues: z.core.$ZodIssue[]): string {
  return issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

/** @internal The implementation behind `MessageStore.initialize`. */
export async function initializeStore(config: StoreConfig): Promise<MessageStore> {
  if (typeof config !== "object" || config === null || typeof config.storage !== "string") {
    throw new ConfigurationError(
      'config must be an object with a "storage" key ("json", "postgres", "mongodb" or a registered name)',
    );
  }
  const custom = registry.get(config.storage);
  if (custom) return custom(config);
  const builtIn = BUILT_INS[config.storage];
  if (!builtIn) {
    const known = [...new Set([...Object.keys(BUILT_INS), ...registry.keys()])].join(", ");
    throw new ConfigurationError(`unknown storage "${config.storage}" (known: ${known})`);
  }
  const parsed = builtIn.schema.safeParse(config);
  if (!parsed.success) {
    throw new ConfigurationError(
      `invalid ${config.storage} config: ${describe(parsed.error.issues)}`,
    );
  }
  const adapter = await loadAdapter(builtIn.packageName);
  try {
    return await adapter.createMessageStore(parsed.data);
  } catch (error) {
    if (isMessageStoreError(error)) throw error;
    throw new ConfigurationError(
      `could not open the ${config.storage} store: ${(error as Error)?.message ?? error}`,
      { cause: error },
    );
  }
}
