import type { z } from "zod";
import { ConfigurationError } from "../errors.js";

/**
 * Validates an adapter's config with its zod schema, filling defaults. The `storage` key, if
 * present, must be `adapter` and is removed first, so an adapter's schema lists only its own
 * keys (a strict object, so that a misspelt key is reported). Throws `ConfigurationError` naming
 * every problem (`invalid postgres config: dsn: …; pool_max: …`), never echoing values, which
 * may be secrets.
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
  const why = parsed.error.issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
  throw new ConfigurationError(`invalid ${adapter} config: ${why}`, { adapter });
}
