import { ConfigurationError, isMessageStoreError } from "@message-store/core";
import { type Db, MongoClient } from "mongodb";
import { ensureIndexes, type MongoContext, mongoContext } from "./collections.js";
import { ADAPTER, type ResolvedMongoConfig } from "./config.js";
import { fromDriverError } from "./errors.js";

/** An open connection: the context and whether the store owns (and must close) the client. */
export interface OpenedMongo {
  ctx: MongoContext;
  owned: boolean;
}

/**
 * Connects (an owned client only; a caller's client is used as it is), learns whether the
 * deployment supports transactions, and creates the indexes. An owned client is closed again
 * if any step fails. Server selection failures become `ConnectionError` with passwords redacted.
 */
export async function connectMongo(config: ResolvedMongoConfig): Promise<OpenedMongo> {
  const owned = config.client === undefined;
  const client = config.client ?? newClient(config);
  try {
    if (owned) await client.connect();
    const db = database(client, config.db);
    const transactions = await supportsTransactions(db);
    await ensureIndexes(db);
    return { ctx: mongoContext(client, db, transactions), owned };
  } catch (error) {
    if (owned) await client.close().catch(() => {});
    // Outside any call, so core does not stamp these: name the adapter here.
    throw isMessageStoreError(error) ? error : (fromDriverError(error, ADAPTER) ?? error);
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
