import {
  ConnectionError,
  type Conversation,
  type DeletedCounts,
  type Message,
  type MessageStoreError,
  type Scope,
  StorageError,
  type TurnTrace,
} from "@message-store/core";
import {
  type MessageStoreDriver,
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
type Reply = null | string | number | Reply[];

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
  async #run(
    lua: string,
    scope: Scope,
    args: readonly string[],
    written: readonly Written[] = [],
  ): Promise<Reply> {
    const scoped = [this.prefix, scope.userId ?? "", scope.tenantId ?? "", ...args];
    try {
      return (await this.client.eval(lua, { arguments: scoped })) as Reply;
    } catch (error) {
      throw refusalOf(error, written) ?? error;
    }
  }

  async #snapshot(
    scope: Scope,
    parts: { conversationId?: string; messages?: boolean; traces?: boolean },
  ): Promise<snapshot.SnapshotEntry[]> {
    const flag = (on?: boolean) => (on ? "1" : "0");
    const args = [parts.conversationId ?? "", flag(parts.messages), flag(parts.traces)];
    return snapshot.snapshotOf((await this.#run(SNAPSHOT, scope, args)) as never);
  }

  async storeConversation({ scope, conversation: c }: RequestOf<"storeConversation">) {
    const args = [c.id, ...conversationArgs(c)];
    return conversationOf((await this.#run(STORE_CONVERSATION, scope, args, [c])) as Row);
  }

  async getConversation({ scope, id, includeDeleted }: RequestOf<"getConversation">) {
    const row = (await this.#run(GET_CONVERSATION, scope, [id])) as Row | null;
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
    return (await this.#run(DELETE_CONVERSATION, scope, [id])) === 1;
  }

  async softDeleteConversation({ scope, id, deletedAt }: RequestOf<"softDeleteConversation">) {
    return (await this.#run(SOFT_DELETE_CONVERSATION, scope, [id, String(deletedAt)])) === 1;
  }

  async restoreConversation({ scope, id }: RequestOf<"restoreConversation">) {
    return (await this.#run(RESTORE_CONVERSATION, scope, [id])) === 1;
  }

  storeMessages({ scope, messages }: RequestOf<"storeMessages">): Promise<Message[]> {
    return this.#storeMessages(scope, messages, "", ["", "", "", "", "", ""]);
  }

  storeSessionMessages(r: RequestOf<"storeSessionMessages">): Promise<Message[]> {
    const ensure = [r.conversation.id, ...conversationArgs(r.conversation)];
    return this.#storeMessages(r.scope, r.messages, String(r.now), ensure);
  }

  /** One script: the checks, the conversation to create, the session timestamps, the writes. */
  async #storeMessages(
    scope: Scope,
    messages: readonly Message[],
    now: string,
    ensure: string[],
  ): Promise<Message[]> {
    const args = [now, ...ensure, ...messages.flatMap((m) => [m.id, ...messageArgs(m)])];
    const stored = (await this.#run(STORE_MESSAGES, scope, args, messages)) as [
      number,
      string,
      string,
    ][];
    return messages.map((m, i) => {
      const [timestamp, tenant, stale] = stored[i]!;
      const embedding = stale === "1" ? null : m.embedding;
      return { ...m, timestamp: Number(timestamp), tenantId: tenant || null, embedding };
    });
  }

  async getMessage({ scope, id, includeDeleted }: RequestOf<"getMessage">) {
    const row = (await this.#run(GET_MESSAGE, scope, [id])) as Row | null;
    return shown(row && messageOf(row).message, includeDeleted);
  }

  async flagMessage({ scope, id, flagged }: RequestOf<"flagMessage">) {
    const row = (await this.#run(FLAG_MESSAGE, scope, [id, flagged ? "1" : "0"])) as Row | null;
    return row && messageOf(row).message;
  }

  async softDeleteMessage({ scope, id, deletedAt }: RequestOf<"softDeleteMessage">) {
    return (await this.#run(SOFT_DELETE_MESSAGE, scope, [id, String(deletedAt)])) === 1;
  }

  async restoreMessage({ scope, id }: RequestOf<"restoreMessage">) {
    return (await this.#run(RESTORE_MESSAGE, scope, [id], [{ id, conversationId: "" }])) === 1;
  }

  async deleteMessage({ scope, id }: RequestOf<"deleteMessage">) {
    return (await this.#run(DELETE_MESSAGE, scope, [id])) === 1;
  }

  async purgeDeleted({ scope, before }: RequestOf<"purgeDeleted">) {
    return counts((await this.#run(PURGE_DELETED, scope, [String(before)])) as number[]);
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
    const owners = (await this.#run(STORE_TURN_TRACES, scope, args, traces)) as string[][];
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
    const row = (await this.#run(GET_TRACE, scope, [id])) as Row | null;
    return shown(row && traceOf(row), includeDeleted);
  }

  async queryTurnTraces({ scope, filter, page }: RequestOf<"queryTurnTraces">) {
    const entries = await this.#snapshot(scope, {
      traces: true,
      ...(filter.conversationId === undefined ? {} : { conversationId: filter.conversationId }),
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
    return counts((await this.#run(DELETE_USER_DATA, scope, [])) as number[]);
  }

  async searchMessages({ scope, query }: RequestOf<"searchMessages">) {
    const entries = await this.#snapshot(scope, {
      messages: true,
      ...(query.conversationId === undefined ? {} : { conversationId: query.conversationId }),
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
    return (await this.#run(SET_EMBEDDINGS, scope, args)) as number;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** node-redis' socket errors become `ConnectionError`, anything else a `StorageError`. */
  mapError(error: unknown): MessageStoreError {
    const detail = redactSecrets(error instanceof Error ? error.message : String(error));
    const name = error instanceof Error ? error.name : "";
    return /Socket|Connection|ClientClosed|Reconnect/.test(name)
      ? new ConnectionError(`the Redis server is unreachable: ${detail}`)
      : new StorageError(`unexpected Redis error: ${detail}`);
  }
}
