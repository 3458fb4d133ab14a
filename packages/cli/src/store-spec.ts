import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { redactSecrets } from "@message-store/core";
import { UsageError } from "./cli-errors.js";

/** A factory config (`MessageStore.initialize` keys) built from a spec or a config file. */
export interface StoreConfigObject {
  storage: string;
  [key: string]: unknown;
}

/** Where a store spec reads environment variables from (`process.env` in the binary). */
export type Env = Record<string, string | undefined>;

const ENV_PREFIX = "env:";
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The value of environment variable `name`; a usage error (naming the variable, never a value) if unset. */
export function readEnv(name: string, env: Env, where: string): string {
  if (!ENV_NAME.test(name))
    throw new UsageError(`${where}: "${name}" is not an environment variable name`);
  const value = env[name];
  if (value === undefined || value === "") {
    throw new UsageError(`${where}: environment variable ${name} is not set`);
  }
  return value;
}

/** `env:NAME` is replaced by the variable's value; anything else is returned as is. */
function valueOrEnv(value: string, env: Env, where: string): string {
  return value.startsWith(ENV_PREFIX) ? readEnv(value.slice(ENV_PREFIX.length), env, where) : value;
}

/** The database named by the path of a MongoDB URI (`mongodb://host/app` gives `app`). */
function mongoDatabaseOf(uri: string): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]*)/i.exec(uri);
  const db = match?.[1] ? decodeURIComponent(match[1]) : "";
  if (!db) {
    throw new UsageError(
      `mongodb store: name the database in the URI path (mongodb://host:27017/<db>) or use a config file with "db"`,
    );
  }
  return db;
}

/**
 * Parses a store spec as given to `--store`, `--from` or `--to`:
 *
 * - `json:<path>`: a JSON file store (path relative to the working directory, or `:memory:`);
 * - `sqlite:<path>`: a SQLite database file (relative to the working directory, or `:memory:`);
 * - `postgres:<dsn>`, or a bare `postgres://…` / `postgresql://…` DSN;
 * - `mongodb:<uri>`, or a bare `mongodb://…` / `mongodb+srv://…` URI; the database is the URI path;
 * - `config:<file>`: a JSON config file with the factory keys (see {@link loadConfigFile}).
 *
 * In the first three, the value may be `env:NAME` to read it from environment variable `NAME`
 * (`postgres:env:DATABASE_URL`), so that no secret is typed on the command line.
 */
export function parseStoreSpec(spec: string, env: Env, cwd = process.cwd()): StoreConfigObject {
  if (/^(postgres|postgresql):\/\//i.test(spec)) return { storage: "postgres", dsn: spec };
  if (/^mongodb(\+srv)?:\/\//i.test(spec)) {
    return { storage: "mongodb", uri: spec, db: mongoDatabaseOf(spec) };
  }
  const colon = spec.indexOf(":");
  const kind = colon > 0 ? spec.slice(0, colon) : "";
  const rest = spec.slice(colon + 1);
  const where = `store "${kind || redactSecrets(spec)}"`;
  if (rest === "" && kind !== "") throw new UsageError(`${where}: nothing after "${kind}:"`);
  switch (kind) {
    case "json": {
      const path = valueOrEnv(rest, env, where);
      return { storage: "json", path: path === ":memory:" ? path : resolve(cwd, path) };
    }
    case "sqlite": {
      const path = valueOrEnv(rest, env, where);
      return { storage: "sqlite", path: path === ":memory:" ? path : resolve(cwd, path) };
    }
    case "postgres":
    case "postgresql":
      return { storage: "postgres", dsn: valueOrEnv(rest, env, where) };
    case "mongodb":
    case "mongo": {
      const uri = valueOrEnv(rest, env, where);
      return { storage: "mongodb", uri, db: mongoDatabaseOf(uri) };
    }
    case "config":
      return loadConfigFile(resolve(cwd, rest), env);
    default:
      throw new UsageError(
        `unrecognised store "${redactSecrets(spec)}": use json:<path>, sqlite:<path>, postgres:<dsn>, mongodb:<uri> or config:<file> (a value may be env:<VAR>)`,
      );
  }
}

/**
 * Reads a JSON config file holding the factory keys, e.g.
 * `{ "storage": "postgres", "dsn": "env:DATABASE_URL", "pool_max": 4 }`.
 *
 * A string value `env:NAME` is replaced by environment variable `NAME`, as on the command line.
 * Deprecated, still read: a key `<key>_env` naming the variable whose value becomes `<key>`
 * (giving both `<key>` and `<key>_env` is an error). A relative json or sqlite `path` is resolved against
 * the config file's folder.
 */
export function loadConfigFile(file: string, env: Env): StoreConfigObject {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "no such file"
        : (error as Error).message;
    throw new UsageError(`config file ${file}: ${reason}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new UsageError(`config file ${file}: expected a JSON object`);
  }
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key.endsWith("_env") && key.length > 4) {
      const target = key.slice(0, -4);
      if (Object.hasOwn(raw, target)) {
        throw new UsageError(`config file ${file}: give "${target}" or "${key}", not both`);
      }
      if (typeof value !== "string") {
        throw new UsageError(`config file ${file}: "${key}" must name an environment variable`);
      }
      config[target] = readEnv(value, env, `config file ${file} (${key})`);
    } else if (typeof value === "string") {
      config[key] = valueOrEnv(value, env, `config file ${file} (${key})`);
    } else {
      config[key] = value;
    }
  }
  if (typeof config.storage !== "string") {
    throw new UsageError(
      `config file ${file}: missing "storage" ("json", "sqlite", "postgres" or "mongodb")`,
    );
  }
  const fileStore = config.storage === "json" || config.storage === "sqlite";
  if (fileStore && typeof config.path === "string" && config.path !== ":memory:") {
    config.path = resolve(dirname(file), config.path);
  }
  return config as StoreConfigObject;
}

/**
 * A short, password-free label of a store for output: `json:/data/app.json`,
 * `postgres://u:***@h/db`, with MongoDB's database and PostgreSQL's schema and partitions.
 */
export function describeStore(config: StoreConfigObject): string {
  const target = config.path ?? config.dsn ?? config.uri;
  const label = typeof target === "string" ? `${config.storage} ${target}` : config.storage;
  const { storage, db, schema, partitions } = config;
  const details = [
    storage === "mongodb" && typeof db === "string" ? `db ${db}` : "",
    storage === "postgres" && typeof schema === "string" ? `schema ${schema}` : "",
    storage === "postgres" && typeof partitions === "number" ? `${partitions} partitions` : "",
  ].filter((d) => d !== "");
  return redactSecrets(details.length > 0 ? `${label} (${details.join(", ")})` : label);
}
