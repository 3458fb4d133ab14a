import type { z } from "zod";
import { ConfigurationError } from "../errors.js";
import { closestName } from "./closest-name.js";
import { configKeys } from "./config-keys.js";

/**
 * Validates an adapter's config with its zod schema, filling defaults. The `storage` key, if
 * present, must be `adapter` and is removed first, so an adapter's schema lists only its own
 * keys (a strict object, so that a misspelt key is reported). Throws `ConfigurationError` naming
 * every problem (`invalid postgres config: dsn: …; pool_max: …`), never echoing values, which
 * may be secrets: a key the schema does not know gets the closest known key as a "did you mean"
 * (as the compile-time error does), and a key given as `undefined` is named first (usually an
 * unset environment variable, as in `dsn: process.env.DATABASE_URL`).
 */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  config: unknown,
  adapter: string,
): z.output<S> {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new ConfigurationError(`${adapter} config must be an object`, { adapter });
  }
  const { storage, ...rest } = config as Record<string, unknown>;
  if (storage !== undefined && storage !== adapter) {
    throw new ConfigurationError(
      `config for storage ${JSON.stringify(String(storage))} given to the ${adapter} adapter`,
      { adapter },
    );
  }
  const parsed = schema.safeParse(rest);
  if (parsed.success) return parsed.data;
  const known = configKeys(schema);
  const undefinedKeys = Object.keys(rest).filter((key) => rest[key] === undefined);
  const why = [
    ...undefinedKeys.map(
      (key) =>
        `${key} is undefined (given with no value: is the environment variable it is read from set?)`,
    ),
    ...parsed.error.issues.map((issue) => {
      if (issue.code === "unrecognized_keys")
        return issue.keys.map((key) => unknownKey(key, known)).join("; ");
      return issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
    }),
  ].join("; ");
  throw new ConfigurationError(`invalid ${adapter} config: ${why}`, { adapter });
}

/** The error text of a key the schema does not know, with the known key it likely misspells. */
function unknownKey(key: string, known: readonly string[]): string {
  const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const suggestion = known.includes(snake) ? snake : closestName(key, known);
  return `unknown key ${JSON.stringify(key)}${suggestion ? ` (did you mean ${JSON.stringify(suggestion)}?)` : ""}`;
}
