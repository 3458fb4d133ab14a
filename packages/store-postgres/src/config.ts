import type pg from "pg";
import { z } from "zod";
import { MAX_PARTITIONS } from "./sql/partitioned-layout.js";

/** The adapter name: the `storage` value that selects it and the prefix of its errors. */
export const ADAPTER = "postgres";

const Positive = z.number().int().min(1);

/** Default server-side `statement_timeout` of the store's own pool, in ms. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** Default `replica_cooldown_ms`. */
export const DEFAULT_REPLICA_COOLDOWN_MS = 30_000;
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

/**
 * Why `schema` may not hold the store's tables, or `null`: PostgreSQL reserves `pg_*` names for
 * its system schemas (`pg_catalog`, `pg_toast`, `pg_temp_*`), and `pg_dump` leaves
 * `information_schema` out of every backup, so tables there would silently be lost. Compared
 * without case: a quoted `"PG_Catalog"` would be legal but only confuses.
 */
function systemSchemaProblem(schema: string): string | null {
  const lower = schema.toLowerCase();
  return lower.startsWith("pg_") || lower === "information_schema"
    ? `"${schema}" is a PostgreSQL system schema (pg_* and information_schema are reserved, and pg_dump leaves information_schema out of backups); choose another schema`
    : null;
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
      .superRefine((schema, ctx) => {
        const problem = systemSchemaProblem(schema);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
    /**
     * Server-side `statement_timeout` (and `idle_in_transaction_session_timeout`, and on
     * PostgreSQL 17+ `transaction_timeout`) of every connection of the store's own pool, in ms; 0
     * sets none. Default 30000 (see {@link callTimeouts}). A statement it ends is a definite
     * rejection: nothing of it is stored.
     */
    statement_timeout_ms: NonNegative.optional(),
    /** How long to wait for a connection, or for a free pooled one, in ms (default 10000). */
    connect_timeout_ms: Positive.default(10_000),
    /**
     * How long the store waits for the server's answer to one statement, in ms, before it asks
     * the server to cancel it (default `statement_timeout_ms` + 5000, or 60000 without a
     * server-side timeout; see {@link callTimeouts}). It must exceed `statement_timeout_ms`: the
     * server's timeout decides slow statements (a definite rejection, nothing stored); this one
     * only catches a server that stopped answering or a lost connection, after which a write
     * rejects with `OutcomeUnknownError`.
     */
    query_timeout_ms: Positive.optional(),
    /**
     * `true` when a transaction-mode pooler (PgBouncer `pool_mode = transaction`) sits between the
     * store and the server: no server settings are sent at connect (PgBouncer refuses unknown
     * startup parameters; set `statement_timeout` on the role or in PgBouncer's `connect_query`),
     * and a dropped connection's backend is left to the pooler, whose backend keys are not the
     * server's process ids. Default `false`.
     */
    transaction_pooler: z.boolean().default(false),
    /**
     * Whether the store sends its statements as named prepared statements, parsed and planned
     * once per connection instead of on every call (default `true`). Always off with
     * `transaction_pooler: true`: a transaction-mode pooler hands each statement to any server
     * connection, where a statement prepared on another one does not exist.
     */
    prepared_statements: z.boolean().default(true),
    /**
     * Connection string of a read replica (a streaming standby) for the reads that may lag:
     * conversation lists, `queryTurnTraces`, `summarizeUsage`, `searchMessages`. Everything else
     * reads the primary. Same form as `dsn`.
     */
    replica_dsn: z
      .string()
      .min(1)
      .superRefine((dsn, ctx) => {
        const problem = dsnProblem(dsn);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
    /** A `pg.Pool` on a read replica the caller owns, instead of `replica_dsn`. */
    replica_pool: z.custom<pg.Pool>(isPool, "replica_pool must be a pg.Pool").optional(),
    /** `max` of the pool the store creates from `replica_dsn` (default `pool_max`). */
    replica_pool_max: Positive.optional(),
    /**
     * What a lagging read does when the replica cannot answer (unreachable, timed out, cancelled
     * by replay): `"primary"` (default) reads the primary instead; `"error"` rejects with
     * `ConnectionError`.
     */
    replica_fallback: z.enum(["primary", "error"]).default("primary"),
    /**
     * After the replica failed to answer a read (unreachable, or no answer within
     * `query_timeout_ms`), how long lagging reads skip it, in ms (default 30000): they read the
     * primary, or reject at once with `replica_fallback: "error"`. The first read after that
     * probes the replica in the background; it is used again once it answers.
     */
    replica_cooldown_ms: Positive.default(DEFAULT_REPLICA_COOLDOWN_MS),
    /**
     * The layout of the tables, chosen when the schema is created: omitted (default) for plain
     * tables, or a number of hash partitions (1–1024; 16 is a good start) for the partitioned
     * layout, where `conversations` is hash-partitioned by `id` and `messages` and `turn_traces`
     * by `conversation_id`, so that every call about one conversation reads and writes one
     * partition of each (see the README, "Running at scale"). An existing schema keeps its
     * layout, read from the catalog: omitted, the store works with whichever it finds; given, it
     * must be the schema's (`ConfigurationError` otherwise). To change the layout, copy the
     * store into a new schema (`message-store migrate`).
     */
    partitions: z.number().int().min(1).max(MAX_PARTITIONS).optional(),
    /**
     * Whether opening may create the store (default true). With `false` the open only reads what
     * is there: no migration runs (a schema that needs one is a
     * `ConfigurationError`), and a store that does not exist yet is a `NotFoundError` ("no
     * message-store data at …"). For read-only tools such as the CLI's `stats` or a migration's
     * source, so that a typo never leaves an empty store behind.
     */
    create: z.boolean().default(true),
  })
  .refine(
    (c) => (c.dsn === undefined) !== (c.pool === undefined),
    "give exactly one of dsn or pool",
  )
  .refine((c) => c.pool_min <= c.pool_max, "pool_min must not exceed pool_max")
  .refine(
    (c) => c.replica_dsn === undefined || c.replica_pool === undefined,
    "give at most one of replica_dsn or replica_pool",
  )
  .refine(
    (c) => !c.transaction_pooler || !c.statement_timeout_ms,
    "statement_timeout_ms cannot pass through a transaction-mode pooler; set statement_timeout on the role (ALTER ROLE … SET statement_timeout) or in PgBouncer's connect_query",
  )
  .superRefine((c, ctx) => {
    const statement = c.statement_timeout_ms ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    const sent = c.pool === undefined && !c.transaction_pooler && statement > 0;
    if (c.query_timeout_ms === undefined || !sent || c.query_timeout_ms > statement) return;
    ctx.addIssue({
      code: "custom",
      path: ["query_timeout_ms"],
      message: `query_timeout_ms (${c.query_timeout_ms}) must exceed statement_timeout_ms (${statement}${c.statement_timeout_ms === undefined ? ", the default" : ""}): the server's timeout decides slow statements, a definite rejection with nothing stored, while the client's only catches a server that stopped answering, after which a write's outcome is unknown`,
    });
  })
  .refine(
    (c) => c.pool === undefined || c.statement_timeout_ms === undefined,
    "statement_timeout_ms applies to pools the store creates from a dsn; set statement_timeout on your own pool instead",
  );

/** What `PostgresMessageStore.open` and `MessageStore.initialize({ storage: "postgres", … })` accept. */
export type PostgresStoreConfig = z.input<typeof PostgresConfigSchema>;
/** What a lagging read does when the replica cannot answer: ask the primary, or reject. */
export type ReplicaFallback = ResolvedPostgresConfig["replica_fallback"];

/** How lagging reads use a replica: `replica_fallback` and `replica_cooldown_ms`. */
export interface ReplicaPolicy {
  fallback: ReplicaFallback;
  cooldownMs: number;
}
/** The configuration with every default filled. */
export type ResolvedPostgresConfig = z.output<typeof PostgresConfigSchema>;

/** How much longer than the server-side timeout the store waits before it cancels, in ms. */
const QUERY_TIMEOUT_MARGIN_MS = 5_000;
/** The store's wait for an answer when there is no server-side timeout, in ms. */
const QUERY_TIMEOUT_WITHOUT_STATEMENT_TIMEOUT_MS = 60_000;

/**
 * How long a call may take, with the defaults filled: the server-side `statement_timeout`
 * (`null`: none; always `null` on a caller's pool, whose settings are its own) and the store's
 * own wait for an answer (`query_timeout_ms`), which exceeds the former by 5 s so that a slow
 * statement on a healthy server ends with the server's own cancellation first.
 */
export function callTimeouts(config: ResolvedPostgresConfig): {
  statementTimeoutMs: number | null;
  queryTimeoutMs: number;
} {
  const statement =
    config.pool === undefined && !config.transaction_pooler
      ? (config.statement_timeout_ms ?? DEFAULT_STATEMENT_TIMEOUT_MS)
      : 0;
  const statementTimeoutMs = statement > 0 ? statement : null;
  return {
    statementTimeoutMs,
    queryTimeoutMs:
      config.query_timeout_ms ??
      (statementTimeoutMs === null
        ? QUERY_TIMEOUT_WITHOUT_STATEMENT_TIMEOUT_MS
        : statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS),
  };
}
