import { z } from "zod";

/** The adapter name: the `storage` value that selects it and the prefix of its errors. */
export const ADAPTER = "sqlite";

/** The `path` of a database that lives in memory only (gone on `close()`). */
export const MEMORY_PATH = ":memory:";

/** Default `busy_timeout`: how long a write waits for another connection's write lock. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * The SQLite adapter's configuration (the keys beside `storage`): `{ path }` (better-sqlite3)
 * or `{ url, auth_token? }` (libSQL: `file:`, `libsql://`, `http(s)://`), plus the tuning keys.
 * Strict: a misspelt key is an error.
 */
export const SqliteConfigSchema = z
  .strictObject({
    /** The database file (created with its directory missing), or `":memory:"`. */
    path: z.string().min(1).optional(),
    /** A libSQL URL: `file:./agent.db`, `libsql://…` (Turso) or `http(s)://…` (sqld). */
    url: z
      .string()
      .regex(
        /^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/)/,
        "url must start with file:, libsql://, http(s):// or ws(s)://",
      )
      .optional(),
    /** The token of a remote libSQL database. Never shown in errors. */
    auth_token: z.string().min(1).optional(),
    /**
     * Which library opens the database: `better-sqlite3` (the default for `path`) or `libsql`
     * (the default for `url`; with `path`, the path as a `file:` URL).
     */
    driver: z.enum(["better-sqlite3", "libsql"]).optional(),
    /** How long a write waits for another connection's write lock, in ms (default 5,000). */
    busy_timeout_ms: z.number().int().min(0).default(DEFAULT_BUSY_TIMEOUT_MS),
    /**
     * `PRAGMA synchronous` in WAL mode. `FULL` (default) syncs the log on every commit: an
     * acknowledged write survives a process crash and a power loss. `NORMAL` syncs only at
     * checkpoints: a write survives a process crash (kill -9), but the last commits before a
     * power loss or OS crash may be lost (never the file's consistency).
     */
    synchronous: z.enum(["FULL", "NORMAL"]).default("FULL"),
    /**
     * Whether opening may create the database (default true). With `false` nothing is created
     * or migrated: a missing file, or one without the store's tables, is a `NotFoundError` ("no
     * message-store data at …"). For read-only tools, so that a typo leaves no empty file.
     */
    create: z.boolean().default(true),
  })
  .superRefine((config, ctx) => {
    if ((config.path === undefined) === (config.url === undefined))
      ctx.addIssue({ code: "custom", message: "give exactly one of path and url" });
    if (config.url !== undefined && config.driver === "better-sqlite3")
      ctx.addIssue({ code: "custom", message: "driver better-sqlite3 takes a path, not a url" });
  });

/** What `SqliteMessageStore.open` and `MessageStore.initialize({ storage: "sqlite", … })` accept. */
export type SqliteStoreConfig = z.input<typeof SqliteConfigSchema>;
/** The configuration once validated. */
export type ResolvedSqliteConfig = z.output<typeof SqliteConfigSchema>;
