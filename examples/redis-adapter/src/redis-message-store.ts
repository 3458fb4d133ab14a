import {
  ConnectionError,
  type Conversation,
  IntegrityError,
  type Message,
  MessageStore,
  type MessageStoreError,
  type StoreCapabilities,
  type TurnTrace,
  type UsageBucket,
} from "@message-store/core";
import {
  type ConversationKey,
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  compareTraceKeys,
  type MessageKey,
  matchesTraceFilter,
  type PageRequest,
  parseConfig,
  type SequencedMessage,
  sliceAfter,
  summarizeTraces,
  type TraceKey,
} from "@message-store/core/adapter";
import { createClient } from "redis";
import { z } from "zod";
import { SCRIPTS, type ScriptName } from "./lua-scripts.js";

export const ADAPTER = "redis-example";

export const RedisConfigSchema = z.strictObject({
  url: z.string().min(1),
  /** Every key starts with it, so one server can hold several stores. */
  prefix: z.string().min(1).default("ms"),
});
export type RedisStoreConfig = z.input<typeof RedisConfigSchema>;

type Client = ReturnType<typeof createClient>;
type Reply = null | string | number | Reply[];

type Hook = Parameters<MessageStore["storeConversation"]>[0];
type ConversationRecord = Hook & { id: string; userId: string; updatedAt: number };

/**
 * A small third-party adapter: every record is a JSON string in a Redis hash, every hook one Lua
 * script (atomic by construction), ordering and paging done in memory with core's helpers. Built
 * only against `@message-store/core` and proved by `@message-store/conformance`. Declares no
 * optional capability. Not for large data: a list reads the whole set it pages through.
 */
export class RedisMessageStore extends MessageStore {
  readonly adapterName = ADAPTER;
  override readonly capabilities: StoreCapabilities = { semanticSearch: false };
  readonly #client: Client;
  readonly #prefix: string;

  private constructor(client: Client, prefix: string) {
    super();
    this.#client = client;
    this.#prefix = prefix;
  }

  /** Connects; `ConfigurationError` for a bad config, before any I/O. */
  static async open(config: RedisStoreConfig): Promise<RedisMessageStore> {
    const { url, prefix } = parseConfig(RedisConfigSchema, config, ADAPTER);
    const client: Client = createClient({ url });
    client.on("error", () => {}); // reconnects on its own; calls fail with the error meanwhile
    await client.connect();
    return new RedisMessageStore(client, prefix);
  }

  async #run(name: ScriptName, ...args: string[]): Promise<Reply> {
    try {
      return (await this.#client.eval(SCRIPTS[name], {
        arguments: [this.#prefix, ...args],
      })) as Reply;
    } catch (error) {
      const text = error instanceof Error ? error.message : "";
      if (text.startsWith("MS_INTEGRITY ")) throw new IntegrityError(text.slice(13));
      throw error;
    }
  }

  #conversation(json: string, lma: string): Conversation {
    const c = JSON.parse(json) as ConversationRecord;
    const lastActivityAt = lma === "" ? c.updatedAt : Math.max(c.updatedAt, Number(lma));
    return { ...c, lastActivityAt } as Conversation;
  }

  #message(json: string, seq: string, flag: string): SequencedMessage {
    const message = JSON.parse(json) as Message;
    message.isFlagged = flag === "1";
    return { message, sequence: Number(seq) };
  }

  async #messagesOf(conversationId: string): Promise<SequencedMessage[]> {
    const flat = (await this.#run("listMessages", conversationId)) as string[];
    const out: SequencedMessage[] = [];
    for (let i = 0; i < flat.length; i += 3)
      out.push(this.#message(flat[i]!, flat[i + 1]!, flat[i + 2]!));
    const key = (m: SequencedMessage): MessageKey => ({
      timestamp: m.message.timestamp,
      sequence: m.sequence,
    });
    return out.sort((a, b) => compareMessageKeys(key(a), key(b)));
  }

  async #conversationsIn(set: string): Promise<Conversation[]> {
    const flat = (await this.#run("listConversations", set)) as string[];
    const out: Conversation[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push(this.#conversation(flat[i]!, flat[i + 1]!));
    return out;
  }

  protected async _storeConversation(record: ConversationRecord): Promise<Conversation> {
    const lma = (await this.#run(
      "storeConversation",
      record.id,
      record.userId,
      JSON.stringify(record),
    )) as string;
    return this.#conversation(JSON.stringify(record), lma);
  }

  protected async _getConversation(id: string): Promise<Conversation | null> {
    const r = (await this.#run("getConversation", id)) as [string, string] | null;
    return r && this.#conversation(r[0], r[1]);
  }

  protected async _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]> {
    const key = (c: Conversation): ConversationKey => ({
      lastActivityAt: c.lastActivityAt,
      id: c.id,
    });
    const all = (await this.#conversationsIn(`u:${userId}`)).sort((a, b) =>
      compareConversationKeys(key(a), key(b)),
    );
    return sliceAfter(all, page, key, compareConversationKeys);
  }

  protected async _listConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]> {
    const all = (await this.#conversationsIn(userId === null ? "convs" : `u:${userId}`)).sort(
      (a, b) => compareIds(a.id, b.id),
    );
    return sliceAfter(all, page, (c) => c.id, compareIds);
  }

  protected async _deleteConversation(id: string): Promise<boolean> {
    return (await this.#run("deleteConversation", id)) === 1;
  }

  protected async _storeMessages(
    messages: Message[],
    options: { ensureConversation?: ConversationRecord },
  ): Promise<Message[]> {
    const ensure = options.ensureConversation;
    const args = ensure ? [ensure.id, ensure.userId, JSON.stringify(ensure)] : ["", "", ""];
    for (const m of messages) {
      args.push(
        m.id,
        m.conversationId,
        JSON.stringify(m),
        m.isFlagged ? "1" : "0",
        String(m.timestamp),
      );
    }
    await this.#run("storeMessages", ...args);
    return messages;
  }

  protected async _getMessage(id: string): Promise<Message | null> {
    const r = (await this.#run("getMessage", id)) as [string, string, string] | null;
    return r && this.#message(...r).message;
  }

  protected async _flagMessage(id: string, flagged: boolean): Promise<Message | null> {
    const r = (await this.#run("flagMessage", id, flagged ? "1" : "0")) as
      | [string, string, string]
      | null;
    return r && this.#message(...r).message;
  }

  protected async _deleteMessage(id: string): Promise<boolean> {
    return (await this.#run("deleteMessage", id)) === 1;
  }

  protected async _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]> {
    const key = (m: SequencedMessage): MessageKey => ({
      timestamp: m.message.timestamp,
      sequence: m.sequence,
    });
    return sliceAfter(await this.#messagesOf(conversationId), page, key, compareMessageKeys);
  }

  protected async _getImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    const live = (await this.#messagesOf(conversationId)).filter((m) => !m.message.isFlagged);
    return live.slice(-n).map((m) => m.message);
  }

  protected async _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    await this.#run(
      "storeTurnTrace",
      trace.id,
      trace.messageId,
      trace.conversationId,
      JSON.stringify(trace),
    );
    return trace;
  }

  protected async _getTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    const json = (await this.#run("getTurnTraceByMessageId", messageId)) as string | null;
    return json === null ? null : (JSON.parse(json) as TurnTrace);
  }

  async #traces(): Promise<TurnTrace[]> {
    return ((await this.#run("listTraces")) as string[]).map(
      (json) => JSON.parse(json) as TurnTrace,
    );
  }

  protected async _queryTurnTraces(
    filter: Parameters<typeof matchesTraceFilter>[1],
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    const key = (t: TurnTrace): TraceKey => ({ timestamp: t.timestamp, id: t.id });
    const matching = (await this.#traces())
      .filter((t) => matchesTraceFilter(t, filter))
      .sort((a, b) => compareTraceKeys(key(a), key(b)));
    return sliceAfter(matching, page, key, compareTraceKeys);
  }

  protected async _summarizeUsage(
    query: Parameters<typeof summarizeTraces>[1],
  ): Promise<UsageBucket[]> {
    return summarizeTraces(await this.#traces(), query);
  }

  protected async _deleteUserData(userId: string) {
    const [conversations, messages, turnTraces] = (await this.#run(
      "deleteUserData",
      userId,
    )) as number[];
    return { conversations: conversations!, messages: messages!, turnTraces: turnTraces! };
  }

  protected async _close(): Promise<void> {
    await this.#client.close();
  }

  /** The driver's connection errors become `ConnectionError`; the rest core's `StorageError`. */
  protected override mapError(error: unknown): MessageStoreError {
    const name = error instanceof Error ? error.name : "";
    if (/Socket|Connection|ClientClosed|Reconnect/.test(name)) {
      return new ConnectionError("the Redis server is unreachable", { cause: error });
    }
    return super.mapError(error);
  }
}
