import {
  type Conversation,
  type ConversationRecord,
  type DeletedCounts,
  IntegrityError,
  type Message,
  MessageStore,
  type MessageStoreError,
  type SearchHit,
  type SearchQuery,
  type StoreCapabilities,
  type TurnTrace,
  type TurnTraceFilter,
  type UsageBucket,
  type UsageQuery,
} from "@message-store/core";
import {
  type ConversationKey,
  cosineSimilarity,
  finalizeUsage,
  type MessageKey,
  type PageRequest,
  parseConfig,
  type SequencedMessage,
  type StoreMessagesOptions,
  type TraceKey,
} from "@message-store/core/adapter";
import pg from "pg";
import { ADAPTER, callTimeouts, PostgresConfigSchema, type PostgresStoreConfig } from "./config.js";
import { BackendReaper } from "./connection/backend-reaper.js";
import { createPool, endPool } from "./connection/create-pool.js";
import { StatementRunner } from "./connection/statement-runner.js";
import { toStoreError } from "./errors.js";
import { applySchema, packagePlan } from "./migrate.js";
import { encodeText } from "./nul-codec.js";
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
import { createQueries, type Queries } from "./sql/queries.js";

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
  /**
   * How long to wait for the answer to one statement before cancelling it on the server, in ms
   * (`query_timeout_ms`; default 60000). `null`: wait as long as it takes.
   */
  queryTimeoutMs?: number | null;
}

/** The `Client` class a pool creates (pg-pool's `Client` option), for the cleanup connection. */
function clientClassOf(pool: pg.Pool): typeof pg.Client {
  const Client = (pool as { Client?: unknown }).Client;
  return typeof Client === "function" ? (Client as typeof pg.Client) : pg.Client;
}

/**
 * The PostgreSQL message store. Open it with `MessageStore.initialize({ storage: "postgres", … })`
 * or {@link PostgresMessageStore.open}; both return a store that is connected and migrated.
 *
 * Every contract call is one statement on one pooled connection; batches and deletions are
 * atomic because each is a single statement. A write commits only when its answer arrived within
 * `query_timeout_ms`: one that rejects was not stored (see the README's "Timeouts").
 */
export class PostgresMessageStore extends MessageStore {
  readonly adapterName = ADAPTER;
  override readonly capabilities: StoreCapabilities = { semanticSearch: true };
  /** The schema holding this store's tables. */
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #runner: StatementRunner;
  readonly #q: Queries;
  readonly #tables: { conversations: string; messages: string; traces: string };

  /**
   * Validates `config` ({@link PostgresConfigSchema}; a `storage: "postgres"` key is accepted and
   * ignored), connects, creates or upgrades the schema and resolves to a ready store. Throws
   * `ConfigurationError` for a bad config (before any I/O), an unsupported server or a schema of
   * a newer package, a login the server refuses (wrong password, missing role or database, SSL
   * the server lacks), and `ConnectionError` (without the password) when the server cannot be
   * reached within `connect_timeout_ms`.
   */
  static async open(
    config: PostgresStoreConfig & { storage?: typeof ADAPTER },
  ): Promise<PostgresMessageStore> {
    const resolved = parseConfig(PostgresConfigSchema, config, ADAPTER);
    const ownsPool = resolved.pool === undefined;
    const pool = resolved.pool ?? createPool({ ...resolved, dsn: resolved.dsn! });
    const { queryTimeoutMs } = callTimeouts(resolved);
    const store = new PostgresMessageStore({
      pool,
      ownsPool,
      schema: resolved.schema,
      queryTimeoutMs,
    });
    try {
      await applySchema(pool, store.schema, packagePlan(), {
        queryTimeoutMs,
        create: resolved.create,
      });
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
    const poolOptions = (options.pool as { options?: pg.ClientConfig }).options ?? null;
    this.#runner = new StatementRunner(
      options.pool,
      options.queryTimeoutMs === undefined ? 60_000 : options.queryTimeoutMs,
      new BackendReaper(clientClassOf(options.pool), poolOptions),
    );
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
    return this.#runner.read(text, values).then((r) => r.rows);
  }

  #written(text: string, values: readonly unknown[]): Promise<Record<string, unknown>[]> {
    return this.#runner.write(text, values).then((r) => r.rows);
  }

  protected async _storeConversation(c: ConversationRecord): Promise<Conversation> {
    const [row] = await this.#written(this.#q.upsertConversation, conversationParams(c));
    return toConversation(row!, this.#tables.conversations);
  }

  protected async _getConversation(id: string): Promise<Conversation | null> {
    const [row] = await this.#rows(this.#q.readConversation, [encodeText(id)]);
    return row ? toConversation(row, this.#tables.conversations) : null;
  }

  protected async _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
  ): Promise<Conversation[]> {
    const { text, values } = this.#q.listConversations(userId, page.after, page.take);
    const rows = await this.#rows(text, values);
    return rows.map((r) => toConversation(r, this.#tables.conversations));
  }

  protected async _listConversations(
    userId: string | null,
    page: PageRequest<string>,
  ): Promise<Conversation[]> {
    const { text, values } = this.#q.listConversationsById(userId, page.after, page.take);
    const rows = await this.#rows(text, values);
    return rows.map((r) => toConversation(r, this.#tables.conversations));
  }

  protected async _deleteConversation(id: string): Promise<boolean> {
    const result = await this.#runner.write(this.#q.deleteConversation, [encodeText(id)]);
    return (result.rowCount ?? 0) > 0;
  }

  protected async _storeMessages(
    messages: Message[],
    options: StoreMessagesOptions,
  ): Promise<Message[]> {
    // Until the ownership rules are enforced here (capabilities.tenants), creating the session's
    // conversation is a statement of its own, before the batch.
    const ensure = options.ensureConversation;
    if (ensure) {
      await this.#runner.write(this.#q.insertConversationIfMissing, conversationParams(ensure));
    }
    // One message (every turn of an agent) has a function of its own: no recordset, no sort.
    if (messages.length === 1) {
      await this.#runner.write(this.#q.putMessage, [messageParam(messages[0]!)]);
    } else {
      await this.#runner.write(this.#q.putMessages, [messageBatchParam(messages)]);
    }
    // The batch is stored exactly as given (the codec is lossless); reading it back would cost
    // a second round trip for identical data.
    return messages;
  }

  protected async _deleteMessage(id: string): Promise<boolean> {
    const result = await this.#runner.write(this.#q.deleteMessage, [encodeText(id)]);
    return (result.rowCount ?? 0) > 0;
  }

  protected async _getMessage(id: string): Promise<Message | null> {
    const [row] = await this.#rows(this.#q.readMessage, [encodeText(id)]);
    return row ? toMessage(row, this.#tables.messages) : null;
  }

  protected async _flagMessage(id: string, flagged: boolean): Promise<Message | null> {
    const [row] = await this.#written(this.#q.flagMessage, [encodeText(id), flagged]);
    return row ? toMessage(row, this.#tables.messages) : null;
  }

  protected async _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
  ): Promise<SequencedMessage[]> {
    const { text, values } = this.#q.listMessages(conversationId, page.after, page.take);
    const rows = await this.#rows(text, values);
    return rows.map((r) => toSequencedMessage(r, this.#tables.messages));
  }

  protected async _getImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    const rows = await this.#rows(this.#q.immediateContext, [encodeText(conversationId), n]);
    return rows.map((r) => toMessage(r, this.#tables.messages));
  }

  protected async _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    const [row] = await this.#written(this.#q.upsertTrace, traceParams(trace));
    const found = row?.message_conversation_id as string | null | undefined;
    if (Number(row?.written) === 1) return trace;
    const why =
      found === null || found === undefined
        ? `message ${JSON.stringify(trace.messageId)} does not exist`
        : `message ${JSON.stringify(trace.messageId)} belongs to another conversation than ${JSON.stringify(trace.conversationId)}`;
    throw new IntegrityError(`cannot store turn trace ${JSON.stringify(trace.id)}: ${why}`);
  }

  protected async _getTurnTraceByMessageId(messageId: string): Promise<TurnTrace | null> {
    const [row] = await this.#rows(this.#q.readTraceByMessage, [encodeText(messageId)]);
    return row ? toTurnTrace(row, this.#tables.traces) : null;
  }

  protected async _queryTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    const { text, values } = this.#q.listTraces(filter, page.after, page.take);
    const rows = await this.#rows(text, values);
    return rows.map((r) => toTurnTrace(r, this.#tables.traces));
  }

  protected async _summarizeUsage(query: UsageQuery): Promise<UsageBucket[]> {
    const bucketMs = query.bucket === "hour" ? HOUR_MS : DAY_MS;
    const { text, values } = this.#q.usage({ ...query, bucketMs });
    const rows = await this.#rows(text, values);
    return finalizeUsage(rows.map(toUsageSums));
  }

  protected async _deleteUserData(userId: string): Promise<DeletedCounts> {
    const [row] = await this.#written(this.#q.deleteUserData, [encodeText(userId)]);
    return {
      conversations: Number(row?.deleted_conversations ?? 0),
      messages: Number(row?.deleted_messages ?? 0),
      turnTraces: Number(row?.deleted_turn_traces ?? 0),
    };
  }

  protected override async _searchMessages(query: SearchQuery): Promise<SearchHit[]> {
    const { text, values } = this.#q.search(query);
    const rows = await this.#rows(text, values);
    return rows.map(({ score, ...row }) => {
      const message = toMessage(row, this.#tables.messages);
      // Rows PostgreSQL could not score (see `search` in queries.ts) are scored here.
      const scored = score ?? cosineSimilarity(query.embedding, message.embedding ?? []);
      return { message, score: scored as number };
    });
  }

  protected async _close(): Promise<void> {
    this.#runner.close();
    if (this.#ownsPool) await endPool(this.#pool);
  }

  /** `pg`'s errors as core's: see `toStoreError`. */
  protected override mapError(error: unknown): MessageStoreError {
    return toStoreError(error);
  }
}
