import {
  type Conversation,
  type ConversationKey,
  type ConversationRecord,
  type DeletedCounts,
  IntegrityError,
  type Message,
  type MessageKey,
  MessageStore,
  type MongoStoreConfig,
  type PageRequest,
  type SequencedMessage,
  type StoreCapabilities,
  summarizeTraces,
  type TraceKey,
  type TurnTrace,
  type TurnTraceFilter,
  type UsageBucket,
  type UsageQuery,
} from "@message-store/core";
import { deleteConversationCascade, deleteUserCascade } from "./cascade.js";
import type { MongoContext } from "./collections.js";
import { connectMongo, parseConfig } from "./connect-mongo.js";
import {
  toConversation,
  toMessage,
  toSequencedMessage,
  toTurnTrace,
  traceFields,
} from "./documents.js";
import { ADAPTER, isDuplicateKey, mapErrors } from "./errors.js";
import {
  CONVERSATION_ID_ORDER,
  CONVERSATION_ORDER,
  conversationIdPage,
  conversationPage,
  MESSAGE_ORDER,
  messagePage,
  pageOptions,
  TRACE_ORDER,
  tracePage,
  UNLIMITED,
  usageFilter,
} from "./queries.js";
import { upsertConversation } from "./upsert-conversation.js";
import { writeMessages } from "./write-messages.js";

/**
 * The MongoDB message store, on the official `mongodb` driver (6.x or 7.x). Get one with
 * `MessageStore.initialize({ storage: "mongodb", uri, db })`, `createMessageStore(config)` or
 * {@link MongoMessageStore.open}; the methods are documented on `MessageStoreApi` in core.
 *
 * Collections `conversations`, `messages` and `turn_traces` hold one document per record with
 * `_id = id`. Semantic search is not offered (`capabilities.semanticSearch` is false); message
 * embeddings are stored and read back all the same.
 */
export class MongoMessageStore extends MessageStore {
  readonly adapterName = ADAPTER;
  override readonly capabilities: StoreCapabilities = { semanticSearch: false };
  readonly #ctx: MongoContext;
  readonly #ownsClient: boolean;

  private constructor(ctx: MongoContext, ownsClient: boolean) {
    super();
    this.#ctx = ctx;
    this.#ownsClient = ownsClient;
  }

  /**
   * Connects, creates the indexes (idempotent) and resolves to a ready store. `config` is
   * `{ storage: "mongodb", uri, db }` or `{ storage: "mongodb", client, db }` (a `MongoClient`
   * you own, left open by `close()`). Throws `ConfigurationError` for a bad config and
   * `ConnectionError` (password redacted) when no server answers within
   * `server_selection_timeout_ms` (default 10 s).
   */
  static async open(config: MongoStoreConfig): Promise<MongoMessageStore> {
    const { ctx, owned } = await connectMongo(parseConfig(config));
    return new MongoMessageStore(ctx, owned);
  }

  /**
   * Whether multi-document writes (batches, cascade deletes) run in transactions: true on a
   * replica set or sharded cluster, false on a standalone server (see the README for what that
   * changes).
   */
  get usesTransactions(): boolean {
    return this.#ctx.transactions;
  }

  protected putConversation(record: ConversationRecord): Promise<Conversation> {
    return mapErrors(() => upsertConversation(this.#ctx, record));
  }

  protected readConversation(id: string): Promise<Conversation | null> {
    return mapErrors(async () => {
      const doc = await this.#ctx.conversations.findOne({ _id: id });
      return doc ? toConversation(doc) : null;
    });
  }

  protected listConversationsByUser(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]> {
    return mapErrors(async () => {
      const docs = await this.#ctx.conversations
        .find(conversationPage(userId, page), pageOptions(CONVERSATION_ORDER, page.take))
        .toArray();
      return docs.map(toConversation);
    });
  }

  protected listAllConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]> {
    return mapErrors(async () => {
      const docs = await this.#ctx.conversations
        .find(conversationIdPage(userId, page), pageOptions(CONVERSATION_ID_ORDER, page.take))
        .toArray();
      return docs.map(toConversation);
    });
  }

  protected removeConversation(id: string): Promise<boolean> {
    return mapErrors(() => deleteConversationCascade(this.#ctx, id));
  }

  protected putMessages(messages: Message[]): Promise<Message[]> {
    return mapErrors(async () => {
      await writeMessages(this.#ctx, messages);
      return messages;
    });
  }

  protected readMessage(id: string): Promise<Message | null> {
    return mapErrors(async () => {
      const doc = await this.#ctx.messages.findOne({ _id: id });
      return doc ? toMessage(doc) : null;
    });
  }

  protected setMessageFlag(id: string, flagged: boolean): Promise<Message | null> {
    return mapErrors(async () => {
      const doc = await this.#ctx.messages.findOneAndUpdate(
        { _id: id },
        { $set: { isFlagged: flagged } },
        { returnDocument: "after" },
      );
      // The flag comes from the call, not the returned document: a server that returns an
      // outdated version under concurrency (jongodb) must not contradict the write just made.
      return doc ? toMessage({ ...doc, isFlagged: flagged }) : null;
    });
  }

  protected listMessages(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]> {
    return mapErrors(async () => {
      const docs = await this.#ctx.messages
        .find(messagePage(conversationId, page), pageOptions(MESSAGE_ORDER, page.take))
        .toArray();
      return docs.map(toSequencedMessage);
    });
  }

  protected readImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    return mapErrors(async () => {
      const docs = await this.#ctx.messages
        .find(
          { conversationId, isFlagged: false },
          { sort: { timestamp: -1, sequence: -1 }, limit: n, batchSize: n },
        )
        .toArray();
      return docs.reverse().map(toMessage);
    });
  }

  protected putTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    return mapErrors(async () => {
      const message = await this.#ctx.messages.findOne(
        { _id: trace.messageId },
        { projection: { _id: 1, conversationId: 1 } },
      );
      if (!message)
        throw this.#integrity(`message ${JSON.stringify(trace.messageId)} does not exist`);
      if (message.conversationId !== trace.conversationId) {
        throw this.#integrity(
          `message ${JSON.stringify(trace.messageId)} belongs to conversation ${JSON.stringify(message.conversationId)}, not ${JSON.stringify(trace.conversationId)}`,
        );
      }
      const write = () =>
        this.#ctx.traces.replaceOne({ _id: trace.id }, traceFields(trace), { upsert: true });
      try {
        await write().catch((error: unknown) => {
          // A concurrent upsert of the same new trace id loses its insert; the retry updates.
          if (isDuplicateKey(error)) return write();
          throw error;
        });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        throw new IntegrityError(
          `message ${JSON.stringify(trace.messageId)} already has a trace (one trace per message)`,
          { adapter: ADAPTER, cause: error },
        );
      }
      return trace;
    });
  }

  protected readTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    return mapErrors(async () => {
      const doc = await this.#ctx.traces.findOne({ messageId });
      return doc ? toTurnTrace(doc) : null;
    });
  }

  protected listTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    return mapErrors(async () => {
      const docs = await this.#ctx.traces
        .find(tracePage(filter, page), pageOptions(TRACE_ORDER, page.take))
        .toArray();
      return docs.map(toTurnTrace);
    });
  }

  /**
   * Fetches the traces in the window (one query on the time or agent index) and sums them with
   * core's `summarizeTraces`, so results equal every other adapter's exactly. Not a server-side
   * `$group`: see the README.
   */
  protected aggregateUsage(query: UsageQuery): Promise<UsageBucket[]> {
    return mapErrors(async () => {
      const docs = await this.#ctx.traces
        .find(usageFilter(query), { sort: { timestamp: 1, idKey: 1 }, batchSize: UNLIMITED })
        .toArray();
      return summarizeTraces(docs.map(toTurnTrace), query);
    });
  }

  protected removeUserData(userId: string): Promise<DeletedCounts> {
    return mapErrors(() => deleteUserCascade(this.#ctx, userId));
  }

  protected async closeStore(): Promise<void> {
    if (this.#ownsClient) await this.#ctx.client.close();
  }

  #integrity(message: string): IntegrityError {
    return new IntegrityError(message, { adapter: ADAPTER });
  }
}

/**
 * The factory entry point: `MessageStore.initialize({ storage: "mongodb", … })` imports this
 * package and calls it with the validated config. Also usable directly (validates again).
 */
export function createMessageStore(config: MongoStoreConfig): Promise<MongoMessageStore> {
  return MongoMessageStore.open(config);
}
