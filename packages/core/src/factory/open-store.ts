import { ConfigurationError, isMessageStoreError } from "../errors.js";
import { closestName } from "./closest-name.js";
import { adapterPackageName, importAdapterPackage } from "./load-adapter.js";
import { findStorageAdapter, registeredStorageNames } from "./storage-registry.js";

/** The storages of this project's adapter packages, offered for a misspelt name. */
const BUILT_IN_STORAGES = ["json", "postgres", "mongodb"];

/** How to get the adapter of a package registered: install the package, and import it in a bundle. */
function installHint(packageName: string | null): string {
  return packageName
    ? ` Either its package is not installed (\`npm install ${packageName}\`), or it is installed but was not imported: a bundled application must import the adapter itself (\`import "${packageName}"\`) before calling initialize.`
    : " Import the adapter package that provides it before calling initialize.";
}

/**
 * The error for a `storage` no adapter is registered under. A likely typo of a registered or
 * built-in name (`postgress`) is answered with that name, not with a package to install.
 */
function unknownStorage(storage: string, packageName: string | null): ConfigurationError {
  const registered = registeredStorageNames();
  const known = registered.length > 0 ? registered.join(", ") : "none";
  const unknown = `unknown storage ${JSON.stringify(storage)}: no adapter is registered under that name (registered: ${known}).`;
  const suggestion = closestName(storage, new Set([...registered, ...BUILT_IN_STORAGES]));
  if (suggestion === null) return new ConfigurationError(`${unknown}${installHint(packageName)}`);
  const ready = findStorageAdapter(suggestion) !== undefined;
  const suggested = adapterPackageName(suggestion);
  return new ConfigurationError(
    `${unknown} Did you mean ${JSON.stringify(suggestion)}?${
      ready || suggested === null
        ? ""
        : ` Its adapter is the package ${suggested} (\`npm install ${suggested}\`; a bundled application imports it: \`import "${suggested}"\`).`
    }`,
  );
}

/**
 * @internal The implementation behind `MessageStore.initialize`: finds the adapter registered
 * under `config.storage` (importing `@message-store/<storage>` by name if none is, for plain
 * Node), and lets it validate the config and open the store.
 */
export async function openStore<Store>(config: unknown): Promise<Store> {
  const storage = (config as { storage?: unknown } | null)?.storage;
  if (typeof config !== "object" || config === null || typeof storage !== "string") {
    throw new ConfigurationError(
      'config must be an object with a "storage" key naming an adapter, e.g. { storage: "json", path }',
    );
  }
  let adapter = findStorageAdapter(storage);
  const packageName = adapterPackageName(storage);
  if (!adapter && packageName && (await importAdapterPackage(packageName))) {
    adapter = findStorageAdapter(storage);
  }
  if (!adapter) throw unknownStorage(storage, packageName);
  try {
    return (await adapter.open(config as Record<string, unknown>)) as Store;
  } catch (error) {
    if (isMessageStoreError(error)) throw error;
    throw new ConfigurationError(
      `could not open the ${storage} store: ${(error as Error)?.message ?? error}`,
      { cause: error, adapter: storage },
    );
  }
}
