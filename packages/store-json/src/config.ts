import { z } from "zod";

/** The adapter name: the `storage` value that selects it and the prefix of its errors. */
export const ADAPTER = "json";

/** The `path` that keeps everything in memory: nothing is read or written on disk. */
export const MEMORY_PATH = ":memory:";

/**
 * Journal size that triggers compaction into the main file when none is configured: 8 MiB, or
 * half the main file's size once that is larger (see `CompactionPolicy`).
 */
export const DEFAULT_COMPACT_THRESHOLD_BYTES = 8 * 1024 * 1024;

/**
 * The JSON adapter's configuration (the keys beside `storage`): `{ path, compact_threshold_bytes? }`.
 * Strict: a misspelt key is an error.
 */
export const JsonConfigSchema = z.strictObject({
  /** The main file; missing directories are created. `":memory:"` keeps nothing on disk. */
  path: z.string().min(1),
  /**
   * Journal size in bytes that triggers compaction into the main file (default: 8 MiB or half
   * the main file, whichever is larger; a configured value is used as it is).
   */
  compact_threshold_bytes: z.number().int().min(1).optional(),
  /**
   * Whether opening may create the store (default true). With `false` the open only reads what
   * is there: no file or directory is created (an existing store gets its lock file and journal,
   * as on every open), and a path with neither a main file nor a journal is a `NotFoundError`
   * ("no message-store data at …"). For read-only tools such as the CLI's `stats` or a
   * migration's source, so that a typo never leaves an empty store behind.
   */
  create: z.boolean().default(true),
});

/** What `JsonMessageStore.open` and `MessageStore.initialize({ storage: "json", … })` accept. */
export type JsonStoreConfig = z.input<typeof JsonConfigSchema>;
/** The configuration once validated. */
export type ResolvedJsonConfig = z.output<typeof JsonConfigSchema>;
