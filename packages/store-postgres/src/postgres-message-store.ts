import {
  type Conversation,
  type ConversationFilter,
  type ConversationRecord,
  type DeletedCounts,
  type EmbeddingUpdate,
  IntegrityError,
  type Message,
  MessageStore,
  type MessageStoreError,
  type PendingEmbeddingsFilter,
  type Scope,
  type SearchHit,
  type SearchQuery,
  type StoreCapabilities,
  type TextSearchFilter,
  type TextSearchHit,
  type TurnTrace,
  type TurnTraceFilter,
  type UsageBucket,
  type UsageQuery,
} from "@message-store/core";
import {
  type ConversationKey,
  finalizeUsage,
  type MessageKey,
  type PageRequest,
  parseConfig,
  type ReadRequest,
  type SequencedMessage,
  type StoreMessagesOptions,
  type TraceKey,
} from "@message-store/core/adapter";
import type pg from "pg";
import { ADAPTER, callTimeouts, PostgresConfigSchema, type PostgresStoreConfig } from "./config.js";
import { createPool, createReplica, endPool } from "./connection/create-pool.js";
import { LaggingReads } from "./connection/lagging-reads.js";
import { runnerOn, type StatementRunner } from "./connection/statement-runner.js";
import { toStoreError } from "./errors.js";
import type { Partitions } from "./layout.js";
import { applySchema, packagePlan } from "./migrate.js";
import { decodeNullable, encodeNullable, encodeText, toJsonParam } from "./nul-codec.js";
import {
  asStored,
  batchParam,
  conversationParams,
  messageParam,
  type StoredFacts,
  toUsageSums,
  traceParams,
} from "./row-mapping.js";
import type { Statement } from "./sql/params.js";
import { createQueries, type Queries } from "./sql/queries.js";
import { textSearchStatement } from "./sql/text-search-queries.js";
import { StoreIo } from "./store-io.js";
import type { PostgresStoreOptions } from "./store-options.js";
import { toTextSearchHits } from "./text-search-hits.js";
import { putTurnTracesStatement, storedTraces, traceRefused } from "./trace-batch.js";

export type { PostgresStoreOptions } from "./store-options.js";

/** A fixed statement with its parameters. */
const stmt = (text: string, values: unknown[]): Statement => ({ text, values });

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

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
  override readonly capabilities: StoreCapabilities = {
    semanticSearch: true,
    softDelete: true,
    tenants: true,
    embeddingQueue: true,
    textSearch: true,
  };
  /** The schema holding this store's tables. */
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #runner: StatementRunner;
  readonly #lagging: LaggingReads;
  readonly #replica: PostgresStoreOptions["replica"] | null;
  readonly #laggingIo: StoreIo;
  readonly #q: Queries;
  readonly #io: StoreIo;
  /** Migration 3 added `embedding_vector` (pgvector), or 4 `embedding_cubes` (found by `open`). */
  #search = { vector: false, cubes: false };
  /** The schema's layout (found or created by `open`). */
  #partitions: Partitions = null;

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
      transactionPooler: resolved.transaction_pooler,
      preparedStatements: resolved.prepared_statements,
      replica: createReplica(resolved),
    });
    try {
      store.#partitions = await applySchema(pool, store.schema, packagePlan, {
        queryTimeoutMs,
        create: resolved.create,
        partitions: resolved.partitions,
      });
      const [row] = await store.#io.rows(store.#q.searchColumns);
      store.#search = { vector: row?.vector === true, cubes: row?.cubes === true };
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
    const timeout = options.queryTimeoutMs === undefined ? 60_000 : options.queryTimeoutMs;
    const pooler = options.transactionPooler === true;
    const prepare = options.preparedStatements !== false && !pooler;
    this.#runner = runnerOn(options.pool, timeout, pooler, prepare);
    const replica = options.replica;
    this.#replica = replica ?? null;
    this.#lagging = new LaggingReads(
      this.#runner,
      replica ? runnerOn(replica.pool, timeout, pooler, prepare) : null,
      replica?.fallback ?? "primary",
    );
    this.schema = options.schema ?? "public";
    this.#q = createQueries(this.schema);
    this.#io = new StoreIo(this.#runner, this.schema);
    // Lists, analytics and search may lag behind the last write: a replica may answer them.
    this.#laggingIo = new StoreIo(this.#runner, this.schema, this.#lagging);
  }

  /**
   * True when searches rank with pgvector (`<=>`, HNSW for 1,536 dimensions: approximate, see
   * the README) rather than the exact float8[] scan; set by {@link PostgresMessageStore.open}.
   */
  get usesPgvector(): boolean {
    return this.#search.vector;
  }

  /**
   * The schema's layout, as {@link PostgresMessageStore.open} found or created it: `null` for the
   * default one, or the number of hash partitions of the partitioned one (`partitions` config).
   */
  get partitions(): Partitions {
    return this.#partitions;
  }

  /** The pool statements run on (the caller's own pool if one was given). */
  get pool(): pg.Pool {
    return this.#pool;
  }

  protected async _storeConversation(c: ConversationRecord): Promise<Conversation> {
    const [row] = await this.#io.written(stmt(this.#q.upsertConversation, conversationParams(c)));
    const stored = this.#io.conversation(row);
    if (stored) return stored;
    throw new IntegrityError(
      `conversation ${JSON.stringify(c.id)} exists with another userId, tenantId or deletedAt; a conversation's owner never changes and deletedAt changes only through softDeleteConversation and restoreConversation`,
    );
  }

  protected async _getConversation(id: string, options: ReadRequest): Promise<Conversation | null> {
    const read = stmt(this.#q.readConversation, [encodeText(id), options.includeDeleted]);
    return this.#io.conversation((await this.#io.rows(read))[0]);
  }

  protected _getConversationsByUserId(
    userId: string,
    page: PageRequest<ConversationKey>,
    filter: ConversationFilter,
  ): Promise<Conversation[]> {
    return this.#laggingIo.conversations(
      this.#q.listConversations(userId, page.after, page.take, filter),
    );
  }

  protected _listConversations(
    userId: string | null,
    page: PageRequest<string>,
    filter: ConversationFilter,
  ): Promise<Conversation[]> {
    return this.#laggingIo.conversations(
      this.#q.listConversationsById(userId, page.after, page.take, filter),
    );
  }

  protected async _deleteConversation(id: string): Promise<boolean> {
    return (await this.#io.changed(stmt(this.#q.deleteConversation, [encodeText(id)]))) > 0;
  }

  protected async _storeMessages(
    messages: Message[],
    options: StoreMessagesOptions,
  ): Promise<Message[]> {
    const ensure = options.ensureConversation;
    // One message (every turn of an agent) has a function of its own: no recordset, no sort.
    // A session write creates its conversation in the same statement (one round trip).
    const [row] = await this.#io.written(
      messages.length === 1 && !ensure
        ? stmt(this.#q.putMessage, [messageParam(messages[0]!)])
        : stmt(this.#q.putMessages, [batchParam(messages), ensure ? toJsonParam(ensure) : null]),
    );
    // The batch is stored as given (the codec is lossless) but for what the function reports:
    // the conversation's tenant and cleared stale embeddings. Reading it back would cost a
    // second round trip for nearly identical data.
    return asStored(messages, row?.stored as StoredFacts);
  }

  protected override _softDeleteConversation(id: string, at: number): Promise<boolean> {
    return this.#io.done(stmt(this.#q.softDeleteConversation, [encodeText(id), at]));
  }

  protected override _restoreConversation(id: string): Promise<boolean> {
    return this.#io.done(stmt(this.#q.restoreConversation, [encodeText(id)]));
  }

  protected override _softDeleteMessage(id: string, at: number): Promise<boolean> {
    return this.#io.done(stmt(this.#q.softDeleteMessage, [encodeText(id), at]));
  }

  protected override _restoreMessage(id: string): Promise<boolean> {
    return this.#io.done(stmt(this.#q.restoreMessage, [encodeText(id)]));
  }

  protected override _purgeDeleted(before: number, scope: Scope): Promise<DeletedCounts> {
    return this.#io.counts(
      stmt(this.#q.purgeDeleted, [
        before,
        encodeNullable(scope.userId ?? null),
        encodeNullable(scope.tenantId ?? null),
      ]),
    );
  }

  protected async _deleteMessage(id: string): Promise<boolean> {
    return (await this.#io.changed(stmt(this.#q.deleteMessage, [encodeText(id)]))) > 0;
  }

  protected async _getMessage(id: string, options: ReadRequest): Promise<Message | null> {
    const read = stmt(this.#q.readMessage, [encodeText(id), options.includeDeleted]);
    return this.#io.message((await this.#io.rows(read))[0]);
  }

  protected async _flagMessage(id: string, flagged: boolean): Promise<Message | null> {
    const write = stmt(this.#q.flagMessage, [encodeText(id), flagged]);
    return this.#io.message((await this.#io.written(write))[0]);
  }

  protected _getMessagesByConversationId(
    conversationId: string,
    page: PageRequest<MessageKey>,
    options: ReadRequest,
  ): Promise<SequencedMessage[]> {
    return this.#io.sequencedMessages(
      this.#q.listMessages(conversationId, page.after, page.take, options.includeDeleted),
    );
  }

  protected _getImmediateContext(conversationId: string, n: number): Promise<Message[]> {
    return this.#io.messages(stmt(this.#q.immediateContext, [encodeText(conversationId), n]));
  }

  protected async _storeTurnTrace(trace: TurnTrace): Promise<TurnTrace> {
    const [row] = await this.#io.written(stmt(this.#q.upsertTrace, traceParams(trace)));
    const found = row?.message_conversation_id as string | null | undefined;
    if (Number(row?.written) === 1) {
      return {
        ...trace,
        userId: decodeNullable(row!.stored_user_id as string | null),
        tenantId: decodeNullable(row!.stored_tenant_id as string | null),
      };
    }
    throw traceRefused(trace, found ?? null);
  }

  /** One statement for the whole batch (`ms_put_turn_traces`), all or nothing. */
  protected override async _storeTurnTraces(traces: TurnTrace[]): Promise<TurnTrace[]> {
    const [row] = await this.#io.written(putTurnTracesStatement(this.schema, traces));
    return storedTraces(traces, row?.result);
  }

  protected async _getTurnTraceByMessageId(
    messageId: string,
    options: ReadRequest,
  ): Promise<TurnTrace | null> {
    const read = stmt(this.#q.readTraceByMessage, [encodeText(messageId), options.includeDeleted]);
    return this.#io.trace((await this.#io.rows(read))[0]);
  }

  protected _queryTurnTraces(
    filter: TurnTraceFilter,
    page: PageRequest<TraceKey>,
  ): Promise<TurnTrace[]> {
    return this.#laggingIo.traces(this.#q.listTraces(filter, page.after, page.take));
  }

  protected async _summarizeUsage(query: UsageQuery): Promise<UsageBucket[]> {
    const bucketMs = query.bucket === "hour" ? HOUR_MS : DAY_MS;
    const rows = await this.#laggingIo.rows(this.#q.usage({ ...query, bucketMs }));
    return finalizeUsage(rows.map(toUsageSums));
  }

  protected _deleteUserData(userId: string, filter: { tenantId?: string }): Promise<DeletedCounts> {
    return this.#io.counts(
      stmt(this.#q.deleteUserData, [encodeText(userId), encodeNullable(filter.tenantId ?? null)]),
    );
  }

  protected override _listPendingEmbeddings(
    filter: PendingEmbeddingsFilter,
    page: PageRequest<string>,
  ): Promise<Message[]> {
    return this.#io.messages(this.#q.listPending(filter, page.after, page.take));
  }

  protected override _setEmbeddings(updates: EmbeddingUpdate[]): Promise<number> {
    return this.#io.changed(stmt(this.#q.setEmbeddings, [toJsonParam(updates)]));
  }

  protected override _searchMessages(query: SearchQuery): Promise<SearchHit[]> {
    const { vector, cubes } = this.#search;
    const search = vector ? this.#q.vectorSearch(query) : this.#q.search(query, cubes);
    return this.#laggingIo.hits(search, query.embedding);
  }

  protected override async _searchConversations(
    filter: TextSearchFilter,
    page: PageRequest<ConversationKey>,
  ): Promise<TextSearchHit[]> {
    const rows = await this.#laggingIo.rows(textSearchStatement(this.schema, filter, page));
    return toTextSearchHits(rows, this.schema);
  }

  protected async _close(): Promise<void> {
    this.#runner.close();
    this.#lagging.close();
    if (this.#ownsPool) await endPool(this.#pool);
    if (this.#replica?.ownsPool) await endPool(this.#replica.pool);
  }

  /** `pg`'s errors as core's: see `toStoreError`. */
  protected override mapError(error: unknown): MessageStoreError {
    return toStoreError(error);
  }
}
