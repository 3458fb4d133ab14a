import {
  ConnectionError,
  type Conversation,
  type ConversationRecord,
  type DeletedCounts,
  type Message,
  type MessageStoreError,
  OutcomeUnknownError,
  type Scope,
  StorageError,
  type TurnTrace,
} from "@message-store/core";
import {
  type DriverOperation,
  type MessageStoreDriver,
  OPERATIONS,
  type RequestOf,
  redactSecrets,
  summarizeTraces,
} from "@message-store/core/adapter";
import type { createClient } from "redis";
import {
  DELETE_CONVERSATION,
  RESTORE_CONVERSATION,
  SOFT_DELETE_CONVERSATION,
  STORE_CONVERSATION,
} from "./lua/conversation-scripts.js";
import { DELETE_USER_DATA, PURGE_DELETED } from "./lua/erasure-scripts.js";
import {
  DELETE_MESSAGE,
  FLAG_MESSAGE,
  RESTORE_MESSAGE,
  SET_EMBEDDINGS,
  SOFT_DELETE_MESSAGE,
  STORE_MESSAGES,
} from "./lua/message-scripts.js";
import { GET_CONVERSATION, GET_MESSAGE, GET_TRACE, SNAPSHOT } from "./lua/read-scripts.js";
import { STORE_TURN_TRACES } from "./lua/trace-scripts.js";
import {
  conversationArgs,
  conversationOf,
  messageArgs,
  messageOf,
  type Row,
  traceArgs,
  traceOf,
} from "./record-rows.js";
import { refusalOf, type Written } from "./refusals.js";
import * as snapshot from "./scope-snapshot.js";

export type RedisClient = ReturnType<typeof createClient>;

/** The name core prefixes errors with, and the `storage` it is registered under. */
export const ADAPTER = "redis-example";

const shown = <R extends { deletedAt: number | null }>(r: R | null, includeDeleted: boolean) =>
  r !== null && (includeDeleted || r.deletedAt === null) ? r : null;
const counts = ([conversations, messages, turnTraces]: number[]): DeletedCounts => ({
  conversations: conversations!,
  messages: messages!,
  turnTraces: turnTraces!,
});

/**
 * A small third-party driver: every operation is one Lua script (lua/), so Redis runs it
 * atomically and every rule of the contract is checked inside the write it guards; records are
 * hashes (record-rows.ts); lists read one snapshot of their scope and page it with core's
 * helpers (scope-snapshot.ts). Core does the rest: validation, views, paging, cursors, errors.
 * Not for large data: a list reads its whole scope.
 */
export class RedisDriver implements MessageStoreDriver {
  readonly name = ADAPTER;
  readonly capabilities = {
    semanticSearch: true,
    softDelete: true,
    tenants: true,
    embeddingQueue: true,
    textSearch: true,
    atomicTraceBatches: true,
  } as const;

  /** `client`: the connection (the driver closes it); `prefix`: the first segment of every key. */
  constructor(
    readonly client: RedisClient,
    readonly prefix: string,
  ) {}

  /** Runs a script; a refusal becomes its error, naming the record of `written` it refused. */
  async #run<T>(
    lua: string,
    scope: Scope,
    args: readonly string[],
    written: readonly Written[] = [],
  ): Promise<T> {
    const scoped = [this.prefix, scope.userId ?? "", scope.tenantId ?? "", ...args];
    try {
      return (await this.client.eval(lua, { arguments: scoped })) as T;
    } catch (error) {
      throw refusalOf(error, written) ?? error;
    }
  }

  /** Runs a script that answers 1 (done) or 0 (absent, out of scope, or nothing to do). */
  async #done(lua: string, scope: Scope, args: string[], written?: Written[]): Promise<boolean> {
    return (await this.#run<number>(lua, scope, args, written)) === 1;
  }

  async #snapshot(
    scope: Scope,
    parts: { conversationId?: string | undefined; messages?: boolean; traces?: boolean },
  ): Promise<snapshot.SnapshotEntry[]> {
    const flag = (on?: boolean) => (on ? "1" : "0");
    const args = [parts.conversationId ?? "", flag(parts.messages), flag(parts.traces)];
    return snapshot.snapshotOf(await this.#run<[Row, Row[], Row[]][]>(SNAPSHOT, scope, args));
  }

  async storeConversation({ scope, conversation: c }: RequestOf<"storeConversation">) {
    const args = [c.id, ...conversationArgs(c)];
    return conversationOf(await this.#run<Row>(STORE_CONVERSATION, scope, args, [c]));
  }

  async getConversation({ scope, id, includeDeleted }: RequestOf<"getConversation">) {
    const row = await this.#run<Row | null>(GET_CONVERSATION, scope, [id]);
    return shown(row && conversationOf(row), includeDeleted);
  }

  async getConversationsByUserId(r: RequestOf<"getConversationsByUserId">) {
    const entries = await this.#snapshot(r.scope, {});
    return snapshot.conversationsByActivity(entries, r.includeDeleted, r.page);
  }

  async listConversations(r: RequestOf<"listConversations">): Promise<Conversation[]> {
    return snapshot.conversationsById(await this.#snapshot(r.scope, {}), r.includeDeleted, r.page);
  }

  async deleteConversation({ scope, id }: RequestOf<"deleteConversation">) {
    return this.#done(DELETE_CONVERSATION, scope, [id]);
  }

  async softDeleteConversation({ scope, id, deletedAt }: RequestOf<"softDeleteConversation">) {
    return this.#done(SOFT_DELETE_CONVERSATION, scope, [id, String(deletedAt)]);
  }

  async restoreConversation({ scope, id }: RequestOf<"restoreConversation">) {
    return this.#done(RESTORE_CONVERSATION, scope, [id]);
  }

  storeMessages({ scope, messages }: RequestOf<"storeMessages">): Promise<Message[]> {
    return this.#storeMessages(scope, messages, null);
  }

  storeSessionMessages({ scope, messages, ...session }: RequestOf<"storeSessionMessages">) {
    return this.#storeMessages(scope, messages, session);
  }

  /** One script: the checks, the session's conversation and timestamps, the writes. */
  async #storeMessages(
    scope: Scope,
    messages: readonly Message[],
    session: { conversation: ConversationRecord; now: number } | null,
  ): Promise<Message[]> {
    const ensure = session
      ? [String(session.now), session.conversation.id, ...conversationArgs(session.conversation)]
      : ["", "", "", "", "", "", ""];
    const args = [...ensure, ...messages.flatMap((m) => [m.id, ...messageArgs(m)])];
    const stored = await this.#run<string[][]>(STORE_MESSAGES, scope, args, messages);
    return messages.map((m, i) => {
      const [timestamp, tenant, stale] = stored[i]!;
      const embedding = stale === "1" ? null : m.embedding;
      return { ...m, timestamp: Number(timestamp), tenantId: tenant || null, embedding };
    });
  }

  async getMessage({ scope, id, includeDeleted }: RequestOf<"getMessage">) {
    const row = await this.#run<Row | null>(GET_MESSAGE, scope, [id]);
    return shown(row && messageOf(row).message, includeDeleted);
  }

  async flagMessage({ scope, id, flagged }: RequestOf<"flagMessage">) {
    const row = await this.#run<Row | null>(FLAG_MESSAGE, scope, [id, flagged ? "1" : "0"]);
    return row && messageOf(row).message;
  }

  async softDeleteMessage({ scope, id, deletedAt }: RequestOf<"softDeleteMessage">) {
    return this.#done(SOFT_DELETE_MESSAGE, scope, [id, String(deletedAt)]);
  }

  async restoreMessage({ scope, id }: RequestOf<"restoreMessage">) {
    return this.#done(RESTORE_MESSAGE, scope, [id], [{ id }]);
  }

  async deleteMessage({ scope, id }: RequestOf<"deleteMessage">) {
    return this.#done(DELETE_MESSAGE, scope, [id]);
  }

  async purgeDeleted({ scope, before }: RequestOf<"purgeDeleted">) {
    return counts(await this.#run<number[]>(PURGE_DELETED, scope, [String(before)]));
  }

  async getMessagesByConversationId(r: RequestOf<"getMessagesByConversationId">) {
    const entries = await this.#snapshot(r.scope, {
      conversationId: r.conversationId,
      messages: true,
    });
    return snapshot.transcriptPage(entries, r.includeDeleted, r.page);
  }

  async getImmediateContext({ scope, conversationId, n }: RequestOf<"getImmediateContext">) {
    const entries = await this.#snapshot(scope, { conversationId, messages: true });
    const window = snapshot.transcript(entries, false).filter((m) => !m.message.isFlagged);
    return window.slice(-n).map((m) => m.message);
  }

  async storeTurnTraces({ scope, traces }: RequestOf<"storeTurnTraces">): Promise<TurnTrace[]> {
    const args = traces.flatMap((t) => [t.id, ...traceArgs(t)]);
    const owners = await this.#run<string[][]>(STORE_TURN_TRACES, scope, args, traces);
    return traces.map((t, i) => {
      const [userId, tenantId] = owners[i]!;
      return { ...t, userId: userId!, tenantId: tenantId || null };
    });
  }

  async getTurnTraceByMessageId({
    scope,
    id,
    includeDeleted,
  }: RequestOf<"getTurnTraceByMessageId">) {
    const row = await this.#run<Row | null>(GET_TRACE, scope, [id]);
    return shown(row && traceOf(row), includeDeleted);
  }

  async queryTurnTraces({ scope, filter, page }: RequestOf<"queryTurnTraces">) {
    const entries = await this.#snapshot(scope, {
      conversationId: filter.conversationId,
      traces: true,
    });
    return snapshot.tracesPage(entries, filter, page);
  }

  async summarizeUsage({ scope, query }: RequestOf<"summarizeUsage">) {
    const entries = await this.#snapshot(scope, { traces: true });
    return summarizeTraces(
      entries.flatMap((e) => e.traces),
      query,
    );
  }

  async deleteUserData({ scope }: RequestOf<"deleteUserData">) {
    return counts(await this.#run<number[]>(DELETE_USER_DATA, scope, []));
  }

  async searchMessages({ scope, query }: RequestOf<"searchMessages">) {
    const entries = await this.#snapshot(scope, {
      conversationId: query.conversationId,
      messages: true,
    });
    return snapshot.semanticSearch(entries, query);
  }

  async searchConversations({ scope, filter, page }: RequestOf<"searchConversations">) {
    const entries = await this.#snapshot(scope, { messages: true });
    return snapshot.textSearch(entries, filter, page);
  }

  async listPendingEmbeddings({ scope, filter, page }: RequestOf<"listPendingEmbeddings">) {
    const entries = await this.#snapshot(scope, { messages: true });
    return snapshot.pendingEmbeddings(entries, filter, page);
  }

  async setEmbeddings({ scope, updates }: RequestOf<"setEmbeddings">) {
    const args = updates.flatMap((u) => [u.id, u.originalContent, JSON.stringify(u.embedding)]);
    return await this.#run<number>(SET_EMBEDDINGS, scope, args);
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** node-redis' socket errors become `ConnectionError`, anything else a `StorageError`. */
  /**
   * A connection lost while a write's script was sent may have run it (outcome unknown); a read,
   * or a command a closed client never sent, is a plain `ConnectionError`.
   */
  mapError(error: unknown, operation?: DriverOperation | "close"): MessageStoreError {
    const detail = redactSecrets(error instanceof Error ? error.message : String(error));
    const name = error instanceof Error ? error.name : "";
    if (!/Socket|Connection|ClientClosed|Reconnect/.test(name))
      return new StorageError(`unexpected Redis error: ${detail}`);
    const write =
      operation !== undefined && operation !== "close" && "write" in OPERATIONS[operation];
    return write && !/ClientClosed/.test(name)
      ? new OutcomeUnknownError(`the Redis server stopped answering: ${detail}`)
      : new ConnectionError(`the Redis server is unreachable: ${detail}`);
  }
}
