import { ConfigurationError } from "@message-store/core";
import { ADAPTER } from "./config.js";
import type { Partitions } from "./partitions.js";

export type { Partitions };

/** What the migration runner's probe found: `partitioned` is NULL when there is no table yet. */
export interface FoundLayout {
  partitioned: boolean | null;
  partitions: number;
}

/** The layout in words, for messages. */
export function describeLayout(partitions: Partitions): string {
  return partitions === null
    ? "the default (unpartitioned) layout"
    : `the partitioned layout with ${partitions} partition${partitions === 1 ? "" : "s"}`;
}

/**
 * The layout a store works with: the schema's own once its tables exist (the config's
 * `partitions`, when given, must then agree: `ConfigurationError` otherwise), else what the
 * config asks to create.
 */
export function resolveLayout(
  schema: string,
  requested: number | undefined,
  found: FoundLayout,
): Partitions {
  if (found.partitioned === null) return requested ?? null;
  const existing = found.partitioned ? found.partitions : null;
  if (requested === undefined || requested === existing) return existing;
  throw new ConfigurationError(
    `schema "${schema}" has ${describeLayout(existing)}, but the config asks for partitions: ${requested}; the layout is chosen when a schema is created, so open it without "partitions" (or with its own), or copy the store into a new schema with \`message-store migrate\``,
    { adapter: ADAPTER },
  );
}
