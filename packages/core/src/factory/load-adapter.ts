/*
 * Node's modules are imported when a package is looked up, never at load: core must load in
 * runtimes without them (Workers, browsers), where adapters are imported by the application.
 */
async function node() {
  const [{ realpathSync }, { readFile }, { createRequire }, { dirname, join }, { pathToFileURL }] =
    await Promise.all([
      import("node:fs"),
      import("node:fs/promises"),
      import("node:module"),
      import("node:path"),
      import("node:url"),
    ]);
  return { realpathSync, readFile, createRequire, dirname, join, pathToFileURL };
}

/** Storages that core itself provides, by the subpath whose import registers them. */
const BUILT_IN = new Map([["memory", "@message-store/core/memory"]]);

/**
 * The module that holds the built-in adapter `storage`: one of core's own (`memory` →
 * `@message-store/core/memory`) or a package (`json` → `@message-store/json`).
 */
export function adapterPackageName(storage: string): string | null {
  const builtIn = BUILT_IN.get(storage);
  if (builtIn) return builtIn;
  return /^[a-z][a-z0-9-]{0,63}$/.test(storage) ? `@message-store/${storage}` : null;
}

/** `@scope/name/sub` → the package `@scope/name` and the export `./sub` (`.` for none). */
function splitSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split("/");
  const size = specifier.startsWith("@") ? 2 : 1;
  const rest = parts.slice(size).join("/");
  return { name: parts.slice(0, size).join("/"), subpath: rest ? `./${rest}` : "." };
}

function isNotFound(error: unknown, packageName: string): boolean {
  const code = (error as { code?: string })?.code;
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    String((error as Error).message).includes(packageName)
  );
}

/** Where the application lives: its working directory and the folder of its entry script. */
async function applicationBases(): Promise<string[]> {
  const { dirname, join, realpathSync } = await node();
  const bases = [join(process.cwd(), "noop.js")];
  const entry = process.argv[1];
  if (entry) {
    bases.push(join(dirname(entry), "noop.js"));
    // A bin reached through a symlink (node_modules/.bin) lives where the link points.
    try {
      bases.push(join(dirname(realpathSync(entry)), "noop.js"));
    } catch {
      // not a file: nothing more to try
    }
  }
  return bases;
}

/**
 * Imports the package from the application's point of view. Core cannot always see an adapter
 * from its own folder (pnpm's isolated node_modules gives core only its own dependencies), but
 * the application that installed both can.
 */
async function importFromApplication(specifier: string): Promise<boolean> {
  const { createRequire, dirname, join, pathToFileURL, readFile } = await node();
  const { name, subpath } = splitSpecifier(specifier);
  for (const base of await applicationBases()) {
    let manifestPath: string;
    try {
      manifestPath = createRequire(base).resolve(`${name}/package.json`);
    } catch {
      continue;
    }
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as {
      exports?: Record<string, { import?: string; default?: string }>;
      main?: string;
    };
    const exported = manifest.exports?.[subpath];
    const entry =
      exported?.import ?? exported?.default ?? (subpath === "." ? manifest.main : undefined);
    if (!entry) continue;
    await import(pathToFileURL(join(dirname(manifestPath), entry)).href);
    return true;
  }
  return false;
}

/**
 * The plain-Node convenience behind `initialize` for an adapter the application did not import:
 * imports the package by name, which registers the adapter. Resolves `false` when the package
 * cannot be found. A bundler cannot follow this import (the specifier is a variable); bundled
 * applications import the adapter themselves.
 */
export async function importAdapterPackage(packageName: string): Promise<boolean> {
  try {
    await import(/* @vite-ignore */ packageName);
    return true;
  } catch (error) {
    if (!isNotFound(error, packageName)) throw error;
    return importFromApplication(packageName);
  }
}
