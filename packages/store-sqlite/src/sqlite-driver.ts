import type { MessageStoreError } from "@message-store/core";
import {
  inScope,
  type MessageStoreDriver,
  type RequestOf,
  type ResultOf,
} from "@message-store/core/adapter";
import {
  applyResolved,
  resolveWrite,
  type Write,
  type WriteResult,
} from "@message-store/core/memory";
import {
  applyCheckpointOps,
  deleteThreadCheckpoints,
  getCheckpoint,
  listCheckpoints,
} from "./checkpoints.js";
import { ADAPTER } from "./config.js";
import type { SqliteConnection } from "./connection/sqlite-connection.js";
import { sqliteError } from "./errors.js";
import * as reads from "./record-reads.js";
import { searchConversations } from "./text-search.js";
import { WorkingSet } from "./working-set.js";
import { loadFor } from "./write-loads.js";

/** Every capability: SQLite serves the whole contract. */
const CAPABILITIES = Object.freeze({
  semanticSearch: true,
  softDelete: true,
  tenants: true,
  embeddingQueue: true,
  textSearch: true,
  atomicTraceBatches: true,
  checkpoints: true,
});

/**
 * The SQLite driver. Each write is one transaction that holds the database's write lock from
 * its first statement: it loads the records the write consults (`write-loads.ts`), resolves it
 * with core's engine (the same rules, checked the same way, as the memory and JSON stores),
 * and stores what changed (`WorkingSet.writeBack`) with the checkpoint rows. Reads are SQL
 * over indexed columns, one statement or one read transaction each.
 */
export class SqliteDriver implements MessageStoreDriver {
  readonly name = ADAPTER;
  readonly capabilities = CAPABILITIES;
  /** The connection (its `library` says which). */
  readonly connection: SqliteConnection;
  /** The database file, `":memory:"`, or the URL without credentials. */
  readonly location: string;

  constructor(connection: SqliteConnection, location: string) {
    this.connection = connection;
    this.location = location;
  }

  #commit<W extends Write>(write: W): Promise<WriteResult<W>> {
    return this.connection.write(async (tx): Promise<WriteResult<W>> => {
      const set = new WorkingSet(tx);
      await loadFor(set, write);
      const resolved = resolveWrite(set.state, write);
      const answer = applyResolved(set.state, resolved);
      await set.writeBack();
      await applyCheckpointOps(tx, resolved.ops);
      return answer;
    });
  }

  #write<K extends Write["method"]>(method: K, request: RequestOf<K>): Promise<ResultOf<K>> {
    return this.#commit({ method, request } as Write) as Promise<ResultOf<K>>;
  }

  storeConversation = (r: RequestOf<"storeConversation">) => this.#write("storeConversation", r);
  deleteConversation = (r: RequestOf<"deleteConversation">) => this.#write("deleteConversation", r);
  softDeleteConversation = (r: RequestOf<"softDeleteConversation">) =>
    this.#write("softDeleteConversation", r);
  restoreConversation = (r: RequestOf<"restoreConversation">) =>
    this.#write("restoreConversation", r);
  storeMessages = (r: RequestOf<"storeMessages">) => this.#write("storeMessages", r);
  storeSessionMessages = (r: RequestOf<"storeSessionMessages">) =>
    this.#write("storeSessionMessages", r);
  flagMessage = (r: RequestOf<"flagMessage">) => this.#write("flagMessage", r);
  softDeleteMessage = (r: RequestOf<"softDeleteMessage">) => this.#write("softDeleteMessage", r);
  restoreMessage = (r: RequestOf<"restoreMessage">) => this.#write("restoreMessage", r);
  deleteMessage = (r: RequestOf<"deleteMessage">) => this.#write("deleteMessage", r);
  purgeDeleted = (r: RequestOf<"purgeDeleted">) => this.#write("purgeDeleted", r);
  storeTurnTraces = (r: RequestOf<"storeTurnTraces">) => this.#write("storeTurnTraces", r);
  deleteUserData = (r: RequestOf<"deleteUserData">) => this.#write("deleteUserData", r);
  setEmbeddings = (r: RequestOf<"setEmbeddings">) => this.#write("setEmbeddings", r);
  putCheckpoint = (r: RequestOf<"putCheckpoint">) => this.#write("putCheckpoint", r);
  putCheckpointWrites = (r: RequestOf<"putCheckpointWrites">) =>
    this.#write("putCheckpointWrites", r);

  /** Not through the engine: it knows a thread's checkpoints only when they are loaded. */
  deleteCheckpoints({ id, scope }: RequestOf<"deleteCheckpoints">): Promise<boolean> {
    return this.connection.write(async (tx) => {
      const set = new WorkingSet(tx);
      await set.conversationsById([id]);
      const c = set.state.conversations.get(id);
      if (!c || !inScope(c, scope)) return false;
      await deleteThreadCheckpoints(tx, id);
      return true;
    });
  }

  getConversation = (r: RequestOf<"getConversation">) => reads.getConversation(this.connection, r);
  getConversationsByUserId = (r: RequestOf<"getConversationsByUserId">) =>
    reads.getConversationsByUserId(this.connection, r);
  listConversations = (r: RequestOf<"listConversations">) =>
    reads.listConversations(this.connection, r);
  getMessage = (r: RequestOf<"getMessage">) => reads.getMessage(this.connection, r);
  getMessagesByConversationId = (r: RequestOf<"getMessagesByConversationId">) =>
    reads.getMessagesByConversationId(this.connection, r);
  getImmediateContext = (r: RequestOf<"getImmediateContext">) =>
    reads.getImmediateContext(this.connection, r);
  getTurnTraceByMessageId = (r: RequestOf<"getTurnTraceByMessageId">) =>
    reads.getTurnTraceByMessageId(this.connection, r);
  queryTurnTraces = (r: RequestOf<"queryTurnTraces">) =>
    this.connection.read((tx) => reads.queryTurnTraces(tx, r));
  summarizeUsage = (r: RequestOf<"summarizeUsage">) => reads.summarizeUsage(this.connection, r);
  searchMessages = (r: RequestOf<"searchMessages">) => reads.searchMessages(this.connection, r);
  listPendingEmbeddings = (r: RequestOf<"listPendingEmbeddings">) =>
    reads.listPendingEmbeddings(this.connection, r);
  searchConversations = (r: RequestOf<"searchConversations">) =>
    this.connection.read((tx) => searchConversations(tx, r));
  getCheckpoint = (r: RequestOf<"getCheckpoint">) =>
    this.connection.read((tx) => getCheckpoint(tx, r));
  listCheckpoints = (r: RequestOf<"listCheckpoints">) =>
    this.connection.read((tx) => listCheckpoints(tx, r));

  close(): Promise<void> {
    return this.connection.close();
  }

  /** SQLite's result codes as core's errors (see `sqliteError`). */
  mapError(error: unknown): MessageStoreError | undefined {
    return sqliteError(error, this.location);
  }
}
