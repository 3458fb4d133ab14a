import { randomBytes } from "node:crypto";
import type { ConversationInput, MessageInput, TurnTraceInput } from "@message-store/core";
import { messageInput, traceInput } from "@message-store/test-servers";
import { type Db, MongoClient } from "mongodb";
import { afterAll, inject } from "vitest";
import { MongoMessageStore } from "../src/index.js";

/** A store on a fresh database, through a caller-owned client whose commands are recorded. */
export interface Fixture {
  store: MongoMessageStore;
  client: MongoClient;
  db: Db;
  dbName: string;
  uri: string;
  /** Names of the commands sent while `op` ran (command monitoring events). */
  commandsOf(op: () => Promise<unknown>): Promise<string[]>;
}

const clients: MongoClient[] = [];
const databases: Db[] = [];

afterAll(async () => {
  // Real servers drop the test databases; jongodb has no dropDatabase and forgets everything anyway.
  await Promise.allSettled(databases.splice(0).map((db) => db.dropDatabase()));
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

/** A unique database name for one test. */
export function uniqueDbName(prefix = "ms"): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** The URI of the server under test, or of the standalone jongodb. */
export function serverUri(standalone = false): string {
  return standalone ? inject("standaloneUri") : inject("mongoUri");
}

/** Opens a store on a new database of the server under test (or of the standalone server). */
export async function openFixture(options: { standalone?: boolean } = {}): Promise<Fixture> {
  const uri = serverUri(options.standalone);
  const client = new MongoClient(uri, { monitorCommands: true, serverSelectionTimeoutMS: 10_000 });
  clients.push(client);
  const dbName = uniqueDbName();
  const db = client.db(dbName);
  databases.push(db);
  const store = await MongoMessageStore.open({ storage: "mongodb", client, db: dbName });
  let recording: string[] | null = null;
  client.on("commandStarted", (event) => recording?.push(event.commandName));
  return {
    store,
    client,
    db,
    dbName,
    uri,
    async commandsOf(op) {
      const commands: string[] = [];
      recording = commands;
      try {
        await op();
      } finally {
        recording = null;
      }
      return commands;
    },
  };
}

/**
 * A store on another new database through the same client (and command recording) as `f`. Keeps
 * repeated rounds fast: jongodb's writes slow down as a collection grows.
 */
export async function nextDatabase(f: Fixture): Promise<Fixture> {
  const dbName = uniqueDbName();
  const db = f.client.db(dbName);
  databases.push(db);
  const store = await MongoMessageStore.open({ storage: "mongodb", client: f.client, db: dbName });
  return { ...f, store, db, dbName };
}

export const T0 = 1_750_000_000_000;

/** A conversation with fixed times. */
export function conv(id: string, extra: Partial<ConversationInput> = {}): ConversationInput {
  return { id, userId: "user-1", createdAt: T0, updatedAt: T0, ...extra };
}

/** A user message at `T0 + offset`. */
export function msg(
  id: string,
  conversationId: string,
  offset: number,
  extra: Partial<MessageInput> = {},
): MessageInput {
  return messageInput(id, conversationId, T0 + offset, { userId: "user-1", ...extra });
}

/** A trace of message `messageId`. */
export function traceOf(
  id: string,
  messageId: string,
  conversationId: string,
  extra: Partial<TurnTraceInput> = {},
): TurnTraceInput {
  return traceInput(id, messageId, conversationId, T0, {
    userId: "user-1",
    totalTokens: 10,
    totalLatencyMs: 100,
    ...extra,
  });
}

/** The ids of a conversation's transcript, read page by page (`limit` per page, or all at once). */
export async function transcript(
  store: MongoMessageStore,
  conversationId: string,
  limit?: number,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.getMessagesByConversationId(conversationId, { limit, cursor });
    ids.push(...page.items.map((m) => m.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}
