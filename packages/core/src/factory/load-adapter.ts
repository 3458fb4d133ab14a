import { realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigurationError } from "../errors.js";
import type { StorageFactory } from "./initialize.js";

interface AdapterModule {
  createMessageStore: StorageFactory;
}

function isNotFound(error: unknown, packageName: string): boolean {
  const code = (error as { code?: string })?.code;
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    String((error as Error).message).includes(packageName)
  );
}

/** Where the application lives: its working directory and the folder of its entry script. */
function applicationBases(): string[] {
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
 * Finds the package from the application's point of view. Core cannot always see an adapter
 * from its own folder (pnpm's isolated node_modules gives core only its own dependencies), but
 * the application that installed both can.
 */
async function importFromApplication(packageName: string): Promise<AdapterModule | null> {
  for (const base of applicationBases()) {
    let manifestPath: string;
    try {
      manifestPath = createRequire(base).resolve(`${packageName}/package.json`);
    } catch {
      continue;
    }
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as {
      exports?: { "."?: { import?: string; default?: string } };
      main?: string;
    };
    const entry =
      manifest.exports?.["."]?.import ?? manifest.exports?.["."]?.default ?? manifest.main;
    if (!entry) continue;
    return (await import(pathToFileURL(join(dirname(manifestPath), entry)).href)) as AdapterModule;
  }
  return null;
}

/**
 * Loads a built-in adapter package by name. A variable specifier keeps bundlers from inlining
 * it. Throws `ConfigurationError` naming the package when it is not installed.
 */
export async function loadAdapter(packageName: string): Promise<AdapterModule> {
  try {
    return (await import(/* @vite-ignore */ packageName)) as AdapterModule;
  } catch (error) {
    if (!isNotFound(error, packageName)) throw error;
    const fromApplication = await importFromApplication(packageName);
    if (fromApplication) return fromApplication;
    throw new ConfigurationError(
      `storage needs the package ${packageName}: run \`npm install ${packageName}\``,
      { cause: error },
    );
  }
}
