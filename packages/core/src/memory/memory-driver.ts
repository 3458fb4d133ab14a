import type { Conversation } from "../models/conversation.js";
import type { Message } from "../models/message.js";
import type { TurnTrace } from "../models/turn-trace.js";
import type { StoreCapabilities } from "../store/capabilities.js";
import type { ReadByIdRequest } from "../store/contract/requests.js";
import type { MessageStoreDriver } from "../store/driver.js";
import type { RequestOf, ResultOf } from "../store/operation-table.js";
import { inScope } from "../store/scope.js";
import { getCheckpoint, listCheckpoints } from "./checkpoint-queries.js";
import { cloneMessage, cloneTrace } from "./clone.js";
import {
  immediateContext,
  listConversationsById,
  listConversationsByUser,
  listMessages,
  listTraces,
  pendingEmbeddings,
  searchMessages,
  summarizeUsage,
} from "./memory-queries.js";
import { conversationView, MemoryState } from "./memory-state.js";
import { resolveWrite } from "./resolve-write.js";
import { searchConversations } from "./text-search.js";
import { applyResolved, type Write, type WriteOperation, type WriteResult } from "./write.js";

/**
 * How a driver's writes reach its state: resolve (`resolveWrite`), then apply
 * (`applyResolved`), with nothing in between that could change the state. A persistence makes
 * the resolved operations durable in between (the JSON store journals them).
 */
export type WriteCommit = <W extends Write>(write: W) => Promise<WriteResult<W>>;

export interface MemoryDriverOptions {
  /** The adapter name in errors. Default `"memory"`. */
  readonly name?: string;
  /** The records to serve. Default: a new, empty state. */
  readonly state?: MemoryState;
  /** How writes are committed. Default: resolved and applied at once. */
  readonly commit?: WriteCommit;
}

/** Every capability, and trace batches are all or nothing. */
const CAPABILITIES: StoreCapabilities = Object.freeze({
  semanticSearch: true,
  softDelete: true,
  tenants: true,
  embeddingQueue: true,
  textSearch: true,
  atomicTraceBatches: true,
  checkpoints: true,
});

/** Resolves and applies each write at once: nothing runs in between. */
function commitAtOnce(state: MemoryState): WriteCommit {
  return async <W extends Write>(write: W): Promise<WriteResult<W>> =>
    applyResolved(state, resolveWrite(state, write));
}

const visible = (r: { deletedAt: number | null }, includeDeleted: boolean) =>
  includeDeleted || r.deletedAt === null;

/**
 * The reference driver: every operation of the contract over a {@link MemoryState}, with every
 * capability. Writes are data (`Write`), resolved into operations against the state and applied
 * synchronously, so a reader never sees half of one; reads walk the state's indexes. Nothing
 * outlives the process: `close()` keeps nothing. The JSON store is this driver with a journal.
 */
export class MemoryDriver implements MessageStoreDriver {
  readonly name: string;
  readonly capabilities: StoreCapabilities = CAPABILITIES;
  readonly #state: MemoryState;
  readonly #commit: WriteCommit;

  constructor(options: MemoryDriverOptions = {}) {
    const state = options.state ?? new MemoryState();
    this.name = options.name ?? "memory";
    this.#state = state;
    this.#commit = options.commit ?? commitAtOnce(state);
  }

  #write<K extends WriteOperation>(method: K, request: RequestOf<K>): Promise<ResultOf<K>> {
    return this.#commit({ method, request } as Write) as Promise<ResultOf<K>>;
  }

  storeConversation(request: RequestOf<"storeConversation">): Promise<Conversation> {
    return this.#write("storeConversation", request);
  }

  async getConversation({ id, includeDeleted, scope }: ReadByIdRequest) {
    const c = this.#state.conversations.get(id);
    return c && visible(c, includeDeleted) && inScope(c, scope) ? conversationView(c) : null;
  }

  async getConversationsByUserId(request: RequestOf<"getConversationsByUserId">) {
    return listConversationsByUser(this.#state, request);
  }

  async listConversations(request: RequestOf<"listConversations">) {
    return listConversationsById(this.#state, request);
  }

  deleteConversation(request: RequestOf<"deleteConversation">): Promise<boolean> {
    return this.#write("deleteConversation", request);
  }

  softDeleteConversation(request: RequestOf<"softDeleteConversation">): Promise<boolean> {
    return this.#write("softDeleteConversation", request);
  }

  restoreConversation(request: RequestOf<"restoreConversation">): Promise<boolean> {
    return this.#write("restoreConversation", request);
  }

  storeMessages(request: RequestOf<"storeMessages">): Promise<Message[]> {
    return this.#write("storeMessages", request);
  }

  storeSessionMessages(request: RequestOf<"storeSessionMessages">): Promise<Message[]> {
    return this.#write("storeSessionMessages", request);
  }

  async getMessage({ id, includeDeleted, scope }: ReadByIdRequest) {
    const m = this.#state.messages.get(id)?.message;
    return m && visible(m, includeDeleted) && inScope(m, scope) ? cloneMessage(m) : null;
  }

  flagMessage(request: RequestOf<"flagMessage">): Promise<Message | null> {
    return this.#write("flagMessage", request);
  }

  softDeleteMessage(request: RequestOf<"softDeleteMessage">): Promise<boolean> {
    return this.#write("softDeleteMessage", request);
  }

  restoreMessage(request: RequestOf<"restoreMessage">): Promise<boolean> {
    return this.#write("restoreMessage", request);
  }

  deleteMessage(request: RequestOf<"deleteMessage">): Promise<boolean> {
    return this.#write("deleteMessage", request);
  }

  purgeDeleted(request: RequestOf<"purgeDeleted">): Promise<ResultOf<"purgeDeleted">> {
    return this.#write("purgeDeleted", request);
  }

  async getMessagesByConversationId(request: RequestOf<"getMessagesByConversationId">) {
    return listMessages(this.#state, request);
  }

  async getImmediateContext(request: RequestOf<"getImmediateContext">) {
    return immediateContext(this.#state, request);
  }

  storeTurnTraces(request: RequestOf<"storeTurnTraces">): Promise<TurnTrace[]> {
    return this.#write("storeTurnTraces", request);
  }

  async getTurnTraceByMessageId({ id, includeDeleted, scope }: ReadByIdRequest) {
    const t = this.#state.traceOf(id);
    return t && visible(t, includeDeleted) && inScope(t, scope) ? cloneTrace(t) : null;
  }

  async queryTurnTraces(request: RequestOf<"queryTurnTraces">) {
    return listTraces(this.#state, request);
  }

  async summarizeUsage(request: RequestOf<"summarizeUsage">) {
    return summarizeUsage(this.#state, request);
  }

  deleteUserData(request: RequestOf<"deleteUserData">): Promise<ResultOf<"deleteUserData">> {
    return this.#write("deleteUserData", request);
  }

  async searchMessages(request: RequestOf<"searchMessages">) {
    return searchMessages(this.#state, request);
  }

  async searchConversations(request: RequestOf<"searchConversations">) {
    return searchConversations(this.#state, request);
  }

  async listPendingEmbeddings(request: RequestOf<"listPendingEmbeddings">) {
    return pendingEmbeddings(this.#state, request);
  }

  setEmbeddings(request: RequestOf<"setEmbeddings">): Promise<number> {
    return this.#write("setEmbeddings", request);
  }

  putCheckpoint(request: RequestOf<"putCheckpoint">): Promise<void> {
    return this.#write("putCheckpoint", request);
  }

  putCheckpointWrites(request: RequestOf<"putCheckpointWrites">): Promise<void> {
    return this.#write("putCheckpointWrites", request);
  }

  async getCheckpoint(request: RequestOf<"getCheckpoint">) {
    return getCheckpoint(this.#state, request);
  }

  async listCheckpoints(request: RequestOf<"listCheckpoints">) {
    return listCheckpoints(this.#state, request);
  }

  deleteCheckpoints(request: RequestOf<"deleteCheckpoints">): Promise<boolean> {
    return this.#write("deleteCheckpoints", request);
  }

  /** Nothing to release: the state stays as it is (a store over it rejects calls after close). */
  async close(): Promise<void> {}
}
