import type pg from "pg";
import { z } from "zod";

/** The adapter name: the `storage` value that selects it and the prefix of its errors. */
export const ADAPTER = "postgres";

const Positive = z.number().int().min(1);
const NonNegative = z.number().int().min(0);

/**
 * Why `dsn` is not a connection string `pg` understands, or `null`: it must be a `postgres://` or
 * `postgresql://` URL, or an absolute socket directory path. Without this check a typo only
 * surfaces as a confusing `ConnectionError` (`pg` reads "localhost:5432/db" as a host name). The
 * reason never repeats the DSN, which may hold a password.
 */
function dsnProblem(dsn: string): string | null {
  if (dsn.startsWith("/")) return null;
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    return "not a valid URL (expected postgres://user:password@host:port/database)";
  }
  return url.protocol === "postgres:" || url.protocol === "postgresql:"
    ? null
    : "must use the postgres:// or postgresql:// scheme";
}

const isPool = (v: unknown): v is pg.Pool =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as pg.Pool).query === "function" &&
  typeof (v as pg.Pool).connect === "function";

/**
 * The PostgreSQL adapter's configuration (the keys beside `storage`): `{ dsn, pool_min?,
 * pool_max?, schema?, … }` or `{ pool, schema? }`. Strict: a misspelt key is an error.
 */
export const PostgresConfigSchema = z
  .strictObject({
    /** Connection string: `postgres://user:password@host:port/database` or a socket directory. */
    dsn: z
      .string()
      .min(1)
      .superRefine((dsn, ctx) => {
        const problem = dsnProblem(dsn);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
    /** A `pg.Pool` the caller owns; the store runs on it as is and leaves it open on `close()`. */
    pool: z.custom<pg.Pool>(isPool, "pool must be a pg.Pool").optional(),
    /** `min` of the pool the store creates from `dsn` (default 2). */
    pool_min: NonNegative.default(2),
    /** `max` of the pool the store creates from `dsn` (default 10). */
    pool_max: Positive.default(10),
    /** Schema holding the tables (default `public`), so several stores can share a database. */
    schema: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "schema must be a plain SQL identifier")
      .optional(),
    /** Server-side `statement_timeout` of every connection of the store's own pool, in ms (default none). */
    statement_timeout_ms: Positive.optional(),
    /** How long to wait for a connection, or for a free pooled one, in ms (default 10000). */
    connect_timeout_ms: Positive.default(10_000),
    /**
     * Client-side limit for one query, in ms, so a frozen server or a partition cannot hang a
     * call (default `statement_timeout_ms` + 5000, else 60000). Pools the store creates only.
     */
    query_timeout_ms: Positive.optional(),
  })
  .refine(
    (c) => (c.dsn === undefined) !== (c.pool === undefined),
    "give exactly one of dsn or pool",
  )
  .refine((c) => c.pool_min <= c.pool_max, "pool_min must not exceed pool_max")
  .refine(
    (c) => c.pool === undefined || (c.statement_timeout_ms ?? c.query_timeout_ms) === undefined,
    "statement_timeout_ms and query_timeout_ms apply to pools the store creates from a dsn; set statement_timeout/query_timeout on your own pool instead",
  );

/** What `PostgresMessageStore.open` and `MessageStore.initialize({ storage: "postgres", … })` accept. */
export type PostgresStoreConfig = z.input<typeof PostgresConfigSchema>;
/** The configuration with every default filled. */
export type ResolvedPostgresConfig = z.output<typeof PostgresConfigSchema>;
