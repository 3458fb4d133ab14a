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
 * Permission bits of the files a new store creates when none is configured: readable and
 * writable by the owner only, since conversations are personal data.
 */
export const DEFAULT_FILE_MODE = 0o600;

/**
 * The JSON adapter's configuration (the keys beside `storage`): `{ path, compact_threshold_bytes?,
 * file_mode?, create? }`.
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
   * Permission bits of the files a new store creates (the main file, its journal, lock and
   * temporary files), e.g. `0o640` to let the group read; default `0o600`, the owner only. The
   * owner must keep read and write. The files of an existing store keep its main file's bits,
   * whatever this says (`chmod` the main file to change them; the others follow it).
   */
  file_mode: z
    .number()
    .int()
    .min(0)
    .max(0o777)
    .refine(
      (mode) => (mode & 0o600) === 0o600,
      "file_mode must let the owner read and write (0o600)",
    )
    .optional(),
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
