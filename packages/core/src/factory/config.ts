import { z } from "zod";

const Positive = z.number().int().min(1);
const NonNegative = z.number().int().min(0);
const hasFunctions =
  (...names: string[]) =>
  (v: unknown): boolean =>
    typeof v === "object" &&
    v !== null &&
    names.every((n) => typeof (v as Record<string, unknown>)[n] === "function");

/** `{ storage: "json", path }`. `path: ":memory:"` keeps nothing on disk. */
export const JsonConfigSchema = z.strictObject({
  storage: z.literal("json"),
  path: z.string().min(1),
  /** Journal size in bytes that triggers compaction into the main file (default 8 MiB). */
  compact_threshold_bytes: Positive.optional(),
});

/** `{ storage: "postgres", dsn, pool_min?, pool_max?, schema? }` or `{ storage: "postgres", pool }`. */
export const PostgresConfigSchema = z
  .strictObject({
    storage: z.literal("postgres"),
    dsn: z.string().min(1).optional(),
    /** A `pg.Pool` the caller owns; left open on `close()`. */
    pool: z.custom<object>(hasFunctions("query", "connect"), "pool must be a pg.Pool").optional(),
    pool_min: NonNegative.default(2),
    pool_max: Positive.default(10),
    /** Schema holding the tables (default `public`), so several stores can share a database. */
    schema: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "schema must be a plain SQL identifier")
      .optional(),
    /** Server-side statement timeout per query, in ms (default none). */
    statement_timeout_ms: Positive.optional(),
    /** How long to wait for a connection, in ms (default 10000). */
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
  .refine((c) => c.pool_min <= c.pool_max, "pool_min must not exceed pool_max");

/** `{ storage: "mongodb", uri, db }` or `{ storage: "mongodb", client, db }`. */
export const MongoConfigSchema = z
  .strictObject({
    storage: z.literal("mongodb"),
    uri: z.string().min(1).optional(),
    /** A `MongoClient` the caller owns; left open on `close()`. */
    client: z
      .custom<object>(hasFunctions("db", "close"), "client must be a MongoClient")
      .optional(),
    db: z.string().min(1).max(63),
    /** How long to wait for a server, in ms (default 10000). */
    server_selection_timeout_ms: Positive.default(10_000),
  })
  .refine(
    (c) => (c.uri === undefined) !== (c.client === undefined),
    "give exactly one of uri or client",
  );

export type JsonStoreConfig = z.input<typeof JsonConfigSchema>;
export type PostgresStoreConfig = z.input<typeof PostgresConfigSchema>;
export type MongoStoreConfig = z.input<typeof MongoConfigSchema>;
export type ResolvedJsonConfig = z.output<typeof JsonConfigSchema>;
export type ResolvedPostgresConfig = z.output<typeof PostgresConfigSchema>;
export type ResolvedMongoConfig = z.output<typeof MongoConfigSchema>;

/** A third-party adapter's config: its own keys beside `storage`. */
export interface CustomStoreConfig {
  storage: string;
  [key: string]: unknown;
}

/** What `MessageStore.initialize` accepts. */
export type StoreConfig =
  | JsonStoreConfig
  | PostgresStoreConfig
  | MongoStoreConfig
  | CustomStoreConfig;
