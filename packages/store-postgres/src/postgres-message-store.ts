import {
  ConfigurationError,
  type Conversation,
  type ConversationKey,
  type ConversationRecord,
  cosineSimilarity,
  type DeletedCounts,
  finalizeUsage,
  IntegrityError,
  type Message,
  type MessageKey,
  MessageStore,
  type PageRequest,
  PostgresConfigSchema,
  type PostgresStoreConfig,
  type ResolvedPostgresConfig,
  type SearchHit,
  type SearchQuery,
  type SequencedMessage,
  type StoreCapabilities,
  type TraceKey,
  type TurnTrace,
  type TurnTraceFilter,
  type UsageBucket,
  type UsageQuery,
} from "@message-store/core";
import type pg from "pg";
import { createPool } from "./create-pool.js";
import { ADAPTER } from "./errors.js";
import { migrate } from "./migrate.js";
import { encodeText } from "./nul-codec.js";
import { createQueries, type Queries } from "./queries.js";
import {
  conversationParams,
  messageBatchParam,
  messageParam,
  toConversation,
  toMessage,
  toSequencedMessage,
  toTurnTrace,
  toUsageSums,
  traceParams,
} from "./row-mapping.js";
import { runQuery } from "./run-query.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** How a {@link PostgresMessageStore} reaches its tables. */
export interface PostgresStoreOptions {
  /** The pool to run every statement on. */
  pool: pg.Pool;
  /** True when the store created the pool and must end it on `close()`. */
  ownsPool: boolean;
  /** Schema holding the tables (default `public`). */
  schema?: string;
}

/**
 * The PostgreSQL message store. Open it with `MessageStore.initialize({ storage: "postgres", … })`
 * or {@link PostgresMessageStore.open}; both return a store that is connected and migrated.
 *
 * Every contract call is one statement on one pooled connection (one round trip); batches and
 * deletions are atomic because each is a single statement.
 */
export class PostgresMessageStore extends MessageStore {
  readonly adapterName = ADAPTER;
  override readonly capabilities: StoreCapabilities = { semanticSearch: true };
  /** The schema holding this store's tables. */
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #q: Queries;
  readonly #tables: { conversations: string; messages: string; traces: string };

  /**
   * Validates `config` (core's `PostgresConfigSchema`), connects, applies pending migrations and
   * returns a ready store. Throws `ConfigurationError` for a bad config and `ConnectionError`
   * (without the password) when the server cannot be reached within `connect_timeout_ms`.
   */
  static async open(config: PostgresStoreConfig): Promise<PostgresMessageStore> {
    const parsed = PostgresConfigSchema.safeParse(config);
    if (!parsed.success) {
      const why = parsed.error.issues
        .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
        .join("; ");
      throw new ConfigurationError(`invalid postgres config: ${why}`, { adapter: ADAPTER });
    }
    return PostgresMessageStore.#openResolved(parsed.data);
  }

  static async #openResolved(config: ResolvedPostgresConfig): Promise<PostgresMessageStore> {
    if (config.pool && (config.statement_timeout_ms ?? config.query_timeout_ms) !== undefined) {
      throw new ConfigurationError(
        "statement_timeout_ms and query_timeout_ms apply to pools the store creates from a dsn; set statement_timeout/query_timeout on your own pool instead",
        { adapter: ADAPTER },
      );
    }
    const ownsPool = config.pool === undefined;
    const pool = ownsPool
      ? createPool(config as ResolvedPostgresConfig & { dsn: string })
      : (config.pool as pg.Pool);
    const store = new PostgresMessageStore({ pool, ownsPool, schema: config.schema });
    try {
      await migrate(pool, store.schema);
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** Wraps a pool without connecting. Prefer {@link PostgresMessageStore.open}, which also migrates. */
  constructor(options: PostgresStoreOptions) {
    super();
    this.#pool = options.pool;
    this.#ownsPool = options.ownsPool;
    this.schema = options.schema ?? "public";
    this.#q = createQueries(this.schema);
    this.#tables = {
      conversations: `${this.schema}.conversations`,
      messages: `${this.schema}.messages`,
      traces: `${this.schema}.turn_traces`,
    };
  }

  /** The pool statements run on (the caller's own pool if one was given). */
  get pool(): pg.Pool {
    return this.#pool;
  }

  #rows(text: string, values: readonly unknown[]): Promise<Record<string, unknown>[]> {
    return runQuery(this.#pool, text, values).then((r) => r.rows);
  }

  protected async putConversation(c: ConversationRecord): Promise<Conversation> {
    const [row] = await this.#rows(this.#q.upsertConversation, conversationParams(c));
    return toConversation(row!, this.#tables.conversations);
  }

  protected async readConversation(id: string): Promise<Conversation | null> {
    const [row] = await this.#rows(this.#q.readConversation, [encodeText(id)]);
    return row ? toConversation(row, this.#tables.conversations) : null;
  }

  protected async listConversationsByUser(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]> {
    const { text, values } = this.#q.listConversations(userId, page.after, page.take);
    const rows = await this.#rows(text, values);
    return rows.map((r) => toConversation(r, this.#tables.conversations));
  }

  protected async listAllConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]> {
    const { text, values } = this.#q.listConversationsById(userId, page.after, page.take);
    const rows = await this.#rows(text, values);
    return rows.map((r) => toConversation(r, this.#tables.conversations));
  }

  protected async removeConversation(id: string): Promise<boolean> {
    const result = await runQuery(this.#pool, this.#q.deleteConversation, [encodeText(id)]);
    return (result.rowCount ?? 0) > 0;
  }

  protected async putMessages(messages: Message[]): Promise<Message[]> {
    // One message (every turn of an agent) has a function of its own: no recordset, no sort.
    if (messages.length === 1) {
      await runQuery(this.#pool, this.#q.putMessage, [messageParam(messages[0]!)]);
    } else {
      await runQuery(this.#pool, this.#q.putMessages, [messageBatchParam(messages)]);
    }
    // The batch is stored exactly as given (the codec is lossless); reading it back would cost
    // a second round trip for identical data.
    return messages;
  }

  protected async readMessage(id: string): Promise<Message | null> {
    const [row] = await this.#rows(this.#q.readMessage, [encodeText(id)]);
    return row ? toMessage(row, this.#tables.messages) : null;
  }

  protected async setMessageFlag(id: string, flagged: boolean): Promise<Message | null> {
    const [row] = await this.#rows(this.#q.flagMessage, [encodeText(id), flagged]);
    return row ? toMessage(row, this.#tables.messages) : null;
  }

  protected async listMessages(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]> {
    const { text, values } = this.#q.listMessages(conversationId, page.after, page.take);
    const rows = await this.#rows(text, values);
    return rows.map((r) => toSequencedMessage(r, this.#tables.messages));
  }

  protected async readImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    const rows = await this.#rows(this.#q.immediateContext, [encodeText(conversationId), n]);
    return rows.map((r) => toMessage(r, this.#tables.messages));
  }

  protected async putTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    const [row] = await this.#rows(this.#q.upsertTrace, traceParams(trace));
    const found = row?.message_conversation_id as string | null | undefined;
    if (Number(row?.written) === 1) return trace;
    const why =
      found === null || found === undefined
        ? `message ${JSON.stringify(trace.messageId)} does not exist`
        : `message ${JSON.stringify(trace.messageId)} belongs to another conversation than ${JSON.stringify(trace.conversationId)}`;
    throw new IntegrityError(`cannot store turn trace ${JSON.stringify(trace.id)}: ${why}`, {
      adapter: ADAPTER,
    });
  }

  protected async readTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    const [row] = await this.#rows(this.#q.readTraceByMessage, [encodeText(messageId)]);
    return row ? toTurnTrace(row, this.#tables.traces) : null;
  }

  protected async listTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    const { text, values } = this.#q.listTraces(filter, page.after, page.take);
    const rows = await this.#rows(text, values);
    return rows.map((r) => toTurnTrace(r, this.#tables.traces));
  }

  protected async aggregateUsage(query: UsageQuery): Promise<UsageBucket[]> {
    const bucketMs = query.bucket === "hour" ? HOUR_MS : DAY_MS;
    const { text, values } = this.#q.usage({ ...query, bucketMs });
    const rows = await this.#rows(text, values);
    return finalizeUsage(rows.map(toUsageSums));
  }

  protected async removeUserData(userId: string): Promise<DeletedCounts> {
    const [row] = await this.#rows(this.#q.deleteUserData, [encodeText(userId)]);
    return {
      conversations: Number(row?.deleted_conversations ?? 0),
      messages: Number(row?.deleted_messages ?? 0),
      turnTraces: Number(row?.deleted_turn_traces ?? 0),
    };
  }

  protected override async searchByEmbedding(query: SearchQuery): Promise<SearchHit[]> {
    const { text, values } = this.#q.search(query);
    const rows = await this.#rows(text, values);
    return rows.map((r) => {
      const message = toMessage(r, this.#tables.messages);
      const score = r.score ?? cosineSimilarity(query.embedding, message.embedding ?? []);
      return { message, score: score as number };
    });
  }

  protected async closeStore(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}
