import { ConfigurationError, isMessageStoreError, NotFoundError } from "@message-store/core";
import { type Db, MongoClient, type MongoClientOptions } from "mongodb";
import {
  COLLECTIONS,
  ensureIndexes,
  type MongoContext,
  mongoContext,
  type ServerFacts,
} from "./collections.js";
import {
  ADAPTER,
  DEFAULT_SERVER_SELECTION_TIMEOUT_MS,
  type ResolvedMongoConfig,
  uriOption,
} from "./config.js";
import { fromDriverError } from "./errors.js";

/** An open connection: the context and whether the store owns (and must close) the client. */
export interface OpenedMongo {
  ctx: MongoContext;
  owned: boolean;
}

/**
 * Connects (an owned client only; a caller's client is used as it is), learns whether the
 * deployment supports transactions, and creates the indexes (with `create: false`, checks that the
 * collections exist instead). An owned client is closed again
 * if any step fails. Server selection failures become `ConnectionError` with passwords redacted.
 */
export async function connectMongo(config: ResolvedMongoConfig): Promise<OpenedMongo> {
  const owned = config.client === undefined;
  const client = config.client ?? newClient(config);
  try {
    if (owned) await client.connect();
    const db = database(client, config.db);
    const facts = await serverFacts(db);
    if (config.create) await ensureIndexes(db);
    else await requireCollections(db, config.db);
    return { ctx: mongoContext(client, db, facts), owned };
  } catch (error) {
    if (owned) await client.close().catch(() => {});
    // Outside any call, so core does not stamp these: name the adapter here.
    throw isMessageStoreError(error) ? error : (fromDriverError(error, ADAPTER) ?? error);
  }
}

/**
 * Whether any of the store's collections exists. A server without `listCollections` (code 59,
 * e.g. a MongoDB-compatible test server) is asked whether any of them holds a document instead.
 */
async function hasCollections(db: Db): Promise<boolean> {
  const ours = Object.values(COLLECTIONS) as string[];
  try {
    const found = await db.listCollections({}, { nameOnly: true }).toArray();
    return found.some((c) => ours.includes(c.name));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 59) throw error;
    for (const name of ours) {
      if ((await db.collection(name).findOne({}, { projection: { _id: 1 } })) !== null) return true;
    }
    return false;
  }
}

/** With `create: false`: the store's collections must exist already (nothing is created). */
async function requireCollections(db: Db, name: string): Promise<void> {
  if (!(await hasCollections(db))) {
    throw new NotFoundError(
      `no message-store data in database "${name}" (opened with create: false, so no collection was created)`,
      { adapter: ADAPTER },
    );
  }
}

/**
 * The client's options. Options given here override the URI's, so the URI's own timeouts are
 * honoured by leaving them out: its `serverSelectionTimeoutMS` is the default of
 * `server_selection_timeout_ms`, and its `connectTimeoutMS`, when set, is not replaced.
 */
function clientOptions(config: ResolvedMongoConfig, uri: string): MongoClientOptions {
  const fromUri = Number(uriOption(uri, "serverSelectionTimeoutMS"));
  const selection =
    config.server_selection_timeout_ms ??
    (Number.isInteger(fromUri) && fromUri > 0 ? fromUri : DEFAULT_SERVER_SELECTION_TIMEOUT_MS);
  return {
    serverSelectionTimeoutMS: selection,
    ...(uriOption(uri, "connectTimeoutMS") === undefined ? { connectTimeoutMS: selection } : {}),
    // The store rejects a call after operation_timeout_ms; the driver then drops the operation's
    // connection too, instead of waiting on it forever (its default).
    socketTimeoutMS: config.operation_timeout_ms,
    appName: "message-store",
  };
}

function newClient(config: ResolvedMongoConfig): MongoClient {
  try {
    return new MongoClient(config.uri!, clientOptions(config, config.uri!));
  } catch (error) {
    throw new ConfigurationError(`invalid mongodb uri: ${(error as Error).message}`, {
      adapter: ADAPTER,
      cause: error,
    });
  }
}

function database(client: MongoClient, name: string): Db {
  try {
    return client.db(name);
  } catch (error) {
    if (isMessageStoreError(error)) throw error;
    throw new ConfigurationError(`invalid mongodb db name: ${(error as Error).message}`, {
      adapter: ADAPTER,
      cause: error,
    });
  }
}

/** MongoDB's document size limit, for a server whose `hello` does not say. */
const DEFAULT_MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

/**
 * From `hello`: transactions need a replica set member (`setName`) or a mongos (`msg:
 * "isdbgrid"`), and sessions (`logicalSessionTimeoutMinutes`); `maxBsonObjectSize` is the largest
 * document the server stores.
 */
async function serverFacts(db: Db): Promise<ServerFacts> {
  const hello = await db.command({ hello: 1 });
  const sessions = hello.logicalSessionTimeoutMinutes != null;
  const max = hello.maxBsonObjectSize;
  return {
    transactions: sessions && (typeof hello.setName === "string" || hello.msg === "isdbgrid"),
    maxDocumentBytes:
      typeof max === "number" && Number.isSafeInteger(max) && max > 0
        ? max
        : DEFAULT_MAX_BSON_OBJECT_SIZE,
  };
}
