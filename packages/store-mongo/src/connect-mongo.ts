import {
  ConfigurationError,
  isMessageStoreError,
  MongoConfigSchema,
  type MongoStoreConfig,
  type ResolvedMongoConfig,
} from "@message-store/core";
import { type Db, MongoClient } from "mongodb";
import { ensureIndexes, type MongoContext, mongoContext } from "./collections.js";
import { ADAPTER, toStoreError } from "./errors.js";

/** An open connection: the context and whether the store owns (and must close) the client. */
export interface OpenedMongo {
  ctx: MongoContext;
  owned: boolean;
}

/** Characters MongoDB forbids in database names (any platform). */
const INVALID_DB_NAME = /[/\\. "$*<>:|?\u0000]/;

/** Validates a config given directly (the factory already did; parsing again is harmless). */
export function parseConfig(config: MongoStoreConfig): ResolvedMongoConfig {
  const parsed = MongoConfigSchema.safeParse(config);
  if (!parsed.success) {
    const why = parsed.error.issues
      .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
      .join("; ");
    throw new ConfigurationError(`invalid mongodb config: ${why}`, { adapter: ADAPTER });
  }
  if (INVALID_DB_NAME.test(parsed.data.db)) {
    throw new ConfigurationError(
      `invalid mongodb db name ${JSON.stringify(parsed.data.db)}: it may not contain / \\ . " $ * < > : | ? space or NUL`,
      { adapter: ADAPTER },
    );
  }
  return parsed.data;
}

/**
 * Connects (an owned client only; a caller's client is used as it is), learns whether the
 * deployment supports transactions, and creates the indexes. An owned client is closed again
 * if any step fails. Server selection failures become `ConnectionError` with passwords redacted.
 */
export async function connectMongo(config: ResolvedMongoConfig): Promise<OpenedMongo> {
  const owned = config.client === undefined;
  const client = owned ? newClient(config) : (config.client as MongoClient);
  try {
    if (owned) await client.connect();
    const db = database(client, config.db);
    const transactions = await supportsTransactions(db);
    await ensureIndexes(db);
    return { ctx: mongoContext(client, db, transactions), owned };
  } catch (error) {
    if (owned) await client.close().catch(() => {});
    throw toStoreError(error);
  }
}

function newClient(config: ResolvedMongoConfig): MongoClient {
  try {
    return new MongoClient(config.uri!, {
      serverSelectionTimeoutMS: config.server_selection_timeout_ms,
      connectTimeoutMS: config.server_selection_timeout_ms,
      appName: "message-store",
    });
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

/**
 * Transactions need a replica set member (`setName` in `hello`) or a mongos (`msg: "isdbgrid"`),
 * and sessions (`logicalSessionTimeoutMinutes`).
 */
async function supportsTransactions(db: Db): Promise<boolean> {
  const hello = await db.command({ hello: 1 });
  const sessions = hello.logicalSessionTimeoutMinutes != null;
  return sessions && (typeof hello.setName === "string" || hello.msg === "isdbgrid");
}
