import type { MongoClient } from "mongodb";
import { z } from "zod";

/** The adapter name: the `storage` value that selects it and the prefix of its errors. */
export const ADAPTER = "mongodb";

/** Characters MongoDB forbids in database names (on any platform). */
const INVALID_DB_NAME = /[/\\. "$*<>:|?\u0000]/;

/** The schemes the driver accepts; checked here so a typo is named with every other problem. */
const URI_SCHEME = /^mongodb(\+srv)?:\/\//i;

const isClient = (v: unknown): v is MongoClient =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as MongoClient).db === "function" &&
  typeof (v as MongoClient).close === "function";

/**
 * The MongoDB adapter's configuration (the keys beside `storage`): `{ uri, db,
 * server_selection_timeout_ms? }` or `{ client, db }`. Strict: a misspelt key is an error. No
 * message repeats the URI, which may hold a password.
 */
export const MongoConfigSchema = z
  .strictObject({
    /** Connection string (`mongodb://…` or `mongodb+srv://…`); the store creates and owns the client. */
    uri: z
      .string()
      .min(1)
      .regex(URI_SCHEME, "uri must start with mongodb:// or mongodb+srv://")
      .optional(),
    /** A `MongoClient` the caller owns; the store uses it as it is and leaves it open on `close()`. */
    client: z.custom<MongoClient>(isClient, "client must be a MongoClient").optional(),
    /** The database holding the collections. */
    db: z
      .string()
      .min(1)
      .max(63)
      .refine(
        (name) => !INVALID_DB_NAME.test(name),
        'db name may not contain / \\ . " $ * < > : | ? space or NUL',
      ),
    /**
     * With `uri`: how long to wait for a server, in ms (the client's `serverSelectionTimeoutMS`,
     * and its `connectTimeoutMS` unless the URI sets that). Default: the URI's
     * `serverSelectionTimeoutMS` when it has one, else 10000; giving both with different values
     * is an error. A caller's `client` keeps its own timeouts.
     */
    server_selection_timeout_ms: z.number().int().min(1).optional(),
    /**
     * The longest one call may take, in ms (default 30000): after it the call rejects with
     * `ConnectionError`, whether the server is slow, frozen or partitioned away. With `uri` it is
     * also the client's `socketTimeoutMS`, so the driver gives up the abandoned operation too.
     */
    operation_timeout_ms: z.number().int().min(1).default(30_000),
    /**
     * Whether opening may create the store (default true). With `false` the open only reads what
     * is there: no collection or index is created, and a store that does not exist yet is a `NotFoundError` ("no
     * message-store data at …"). For read-only tools such as the CLI's `stats` or a migration's
     * source, so that a typo never leaves an empty store behind.
     */
    create: z.boolean().default(true),
  })
  .refine(
    (c) => (c.uri === undefined) !== (c.client === undefined),
    "give exactly one of uri or client",
  )
  .refine((c) => {
    const fromUri = c.uri === undefined ? undefined : uriOption(c.uri, "serverSelectionTimeoutMS");
    const given = c.server_selection_timeout_ms;
    return fromUri === undefined || given === undefined || Number(fromUri) === given;
  }, "server_selection_timeout_ms and the uri's serverSelectionTimeoutMS differ; give the timeout once");

/** Default server selection timeout, in ms, when neither the config nor the URI sets one. */
export const DEFAULT_SERVER_SELECTION_TIMEOUT_MS = 10_000;

/**
 * The value of option `name` in a connection string's query, or `undefined`. MongoDB option
 * names are case-insensitive. Read by hand: a URI with several hosts is no WHATWG URL.
 */
export function uriOption(uri: string, name: string): string | undefined {
  const query = uri.slice(uri.indexOf("?") + 1 || uri.length);
  for (const [key, value] of new URLSearchParams(query)) {
    if (key.toLowerCase() === name.toLowerCase()) return value;
  }
  return undefined;
}

/** What `MongoMessageStore.open` and `MessageStore.initialize({ storage: "mongodb", … })` accept. */
export type MongoStoreConfig = z.input<typeof MongoConfigSchema>;
/** The configuration with every default filled. */
export type ResolvedMongoConfig = z.output<typeof MongoConfigSchema>;
