import type { MessageStoreError, Scope, StoreCapabilities } from "@message-store/core";
import { IntegrityError } from "@message-store/core";
import {
  finalizeUsage,
  type MessageStoreDriver,
  parseConfig,
  type RequestOf,
} from "@message-store/core/adapter";
import type pg from "pg";
import { putCheckpointParams, putWritesParams, toStoredCheckpoint } from "./checkpoint-rows.js";
import {
  ADAPTER,
  callTimeouts,
  DEFAULT_REPLICA_COOLDOWN_MS,
  PostgresConfigSchema,
  type PostgresStoreConfig,
} from "./config.js";
import { createPool, createReplica, endPool } from "./connection/create-pool.js";
import { LaggingReads } from "./connection/lagging-reads.js";
import { runnerOn, type StatementRunner } from "./connection/statement-runner.js";
import { toStoreError } from "./errors.js";
import type { Partitions } from "./layout.js";
import { messageParams, storedFacts } from "./message-params.js";
import { applySchema, packagePlan } from "./migrate.js";
import { decodeNullable, encodeNullable, encodeText, toJsonParam } from "./nul-codec.js";
import {
  asStored,
  asStoredTraces,
  batchParam,
  conversationParams,
  toUsageSums,
  traceParams,
} from "./row-mapping.js";
import { checkpointQueries } from "./sql/checkpoint-queries.js";
import type { Statement } from "./sql/params.js";
import { createQueries, type Queries } from "./sql/queries.js";
import { scopeParams } from "./sql/scope-conditions.js";
import { textSearchStatement } from "./sql/text-search-queries.js";
import { StoreIo } from "./store-io.js";
import type { PostgresStoreOptions } from "./store-options.js";
import { toTextSearchHits } from "./text-search-hits.js";

/** A fixed statement with its parameters, and then the scope's when it takes them (`ownedBy`). */
const stmt = (text: string, values: unknown[], scope?: Scope): Statement => ({
  text,
  values: scope ? [...values, ...scopeParams(scope)] : values,
});

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The PostgreSQL driver of a message store (open one with `PostgresMessageStore.open`). Every
 * call is one statement on one pooled connection, and the request's scope is part of that
 * statement (see `sql/queries.ts`): batches, session writes, deletions and the ownership rules
 * are atomic because each is a single statement, sent in one round trip. A write rejected with
 * `ConnectionError` was not stored; one whose answer never came rejects with
 * `OutcomeUnknownError` and is safe to retry (see the README's "Timeouts").
 */
export class PostgresDriver implements MessageStoreDriver {
  readonly name = ADAPTER;
  readonly capabilities: StoreCapabilities = {
    semanticSearch: true,
    softDelete: true,
    tenants: true,
    embeddingQueue: true,
    textSearch: true,
    atomicTraceBatches: true,
    checkpoints: true,
  };
  /** The schema holding this store's tables. */
  readonly schema: string;
  /** The pool statements run on (the caller's own pool if one was given). */
  readonly pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #runner: StatementRunner;
  readonly #lagging: LaggingReads;
  readonly #replica: PostgresStoreOptions["replica"] | null;
  #q: Queries;
  #cq: ReturnType<typeof checkpointQueries>;
  readonly #io: StoreIo;
  /** Lists, analytics and search may lag behind the last write: a replica may answer them. */
  readonly #laggingIo: StoreIo;
  /** Migration 3 added `embedding_vector` (pgvector), or 4 `embedding_cubes` (found by `open`). */
  #search = { vector: false, cubes: false };
  /** The schema's layout (found or created by `open`). */
  #partitions: Partitions = null;

  /**
   * Validates `config` ({@link PostgresConfigSchema}; a `storage: "postgres"` key is accepted and
   * ignored), connects, creates or upgrades the schema and resolves to a ready driver. Throws
   * `ConfigurationError` for a bad config (before any I/O), an unsupported server or a schema of
   * a newer package, a login the server refuses (wrong password, missing role or database, SSL
   * the server lacks), and `ConnectionError` (without the password) when the server cannot be
   * reached within `connect_timeout_ms`.
   */
  static async open(
    config: PostgresStoreConfig & { storage?: typeof ADAPTER },
  ): Promise<PostgresDriver> {
    const resolved = parseConfig(PostgresConfigSchema, config, ADAPTER);
    const ownsPool = resolved.pool === undefined;
    const pool = resolved.pool ?? createPool({ ...resolved, dsn: resolved.dsn! });
    const { queryTimeoutMs } = callTimeouts(resolved);
    const driver = new PostgresDriver({
      pool,
      ownsPool,
      schema: resolved.schema,
      queryTimeoutMs,
      transactionPooler: resolved.transaction_pooler,
      preparedStatements: resolved.prepared_statements,
      replica: createReplica(resolved),
    });
    try {
      driver.#partitions = await applySchema(pool, driver.schema, packagePlan, {
        queryTimeoutMs,
        create: resolved.create,
        partitions: resolved.partitions,
      });
      driver.#q = createQueries(driver.schema, driver.#partitions !== null);
      driver.#cq = checkpointQueries(driver.schema, driver.#partitions !== null);
      const [row] = await driver.#io.rows(driver.#q.searchColumns);
      driver.#search = { vector: row?.vector === true, cubes: row?.cubes === true };
      await driver.#lagging.verify();
    } catch (error) {
      await driver.close();
      throw toStoreError(error);
    }
    return driver;
  }

  /** Wraps a pool without connecting. Prefer {@link PostgresDriver.open}, which also migrates. */
  constructor(options: PostgresStoreOptions) {
    this.pool = options.pool;
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
      {
        fallback: replica?.fallback ?? "primary",
        cooldownMs: replica?.cooldownMs ?? DEFAULT_REPLICA_COOLDOWN_MS,
      },
    );
    this.schema = options.schema ?? "public";
    this.#q = createQueries(this.schema);
    this.#cq = checkpointQueries(this.schema);
    this.#io = new StoreIo(this.#runner, this.schema);
    this.#laggingIo = new StoreIo(this.#runner, this.schema, this.#lagging);
  }

  /**
   * True when searches rank with pgvector (`<=>`, HNSW for 1,536 dimensions: approximate, see
   * the README) rather than the exact float8[] scan; set by {@link PostgresDriver.open}.
   */
  get usesPgvector(): boolean {
    return this.#search.vector;
  }

  /**
   * The schema's layout, as {@link PostgresDriver.open} found or created it: `null` for the
   * default one, or the number of hash partitions of the partitioned one (`partitions` config).
   */
  get partitions(): Partitions {
    return this.#partitions;
  }

  async storeConversation({ conversation }: RequestOf<"storeConversation">) {
    const write = stmt(this.#q.upsertConversation, conversationParams(conversation));
    const stored = this.#io.conversation((await this.#io.written(write))[0]);
    // The statement refuses (MS003) rather than skipping the row; no row is a broken server.
    if (!stored)
      throw new IntegrityError(`conversation ${JSON.stringify(conversation.id)} was not stored`);
    return stored;
  }

  async getConversation({ id, includeDeleted, scope }: RequestOf<"getConversation">) {
    const read = stmt(this.#q.readConversation, [encodeText(id), includeDeleted], scope);
    return this.#io.conversation((await this.#io.rows(read))[0]);
  }

  getConversationsByUserId({ scope, includeDeleted, page }: RequestOf<"getConversationsByUserId">) {
    return this.#laggingIo.conversations(
      this.#q.listConversations(scope, page.after, page.take, includeDeleted),
    );
  }

  listConversations({ scope, includeDeleted, page }: RequestOf<"listConversations">) {
    return this.#laggingIo.conversations(
      this.#q.listConversationsById(scope, page.after, page.take, includeDeleted),
    );
  }

  async deleteConversation({ id, scope }: RequestOf<"deleteConversation">) {
    const write = stmt(this.#q.deleteConversation, [encodeText(id)], scope);
    return (await this.#io.changed(write)) > 0;
  }

  softDeleteConversation({ id, deletedAt, scope }: RequestOf<"softDeleteConversation">) {
    return this.#io.done(stmt(this.#q.softDeleteConversation, [encodeText(id), deletedAt], scope));
  }

  restoreConversation({ id, scope }: RequestOf<"restoreConversation">) {
    return this.#io.done(stmt(this.#q.restoreConversation, [encodeText(id)], scope));
  }

  async storeMessages({ messages }: RequestOf<"storeMessages">) {
    const { writeMessage, writeMessages } = this.#q;
    // The batch is stored as given (the codec is lossless) but for what the write reports: the
    // conversation's tenant and cleared stale embeddings. Reading it back would cost a second
    // round trip for nearly identical data.
    const write =
      messages.length === 1 && writeMessage !== null
        ? stmt(writeMessage, messageParams(messages[0]!))
        : stmt(writeMessages, [batchParam(messages), null, null]);
    return asStored(messages, storedFacts(await this.#io.written(write)));
  }

  /** One statement: the conversation, its lock and the timestamps inside the batch write. */
  async storeSessionMessages({ conversation, messages, now }: RequestOf<"storeSessionMessages">) {
    const values = [batchParam(messages), toJsonParam(conversation), now];
    const rows = await this.#io.written(stmt(this.#q.writeMessages, values));
    return asStored(messages, storedFacts(rows));
  }

  async getMessage({ id, includeDeleted, scope }: RequestOf<"getMessage">) {
    const read = stmt(this.#q.readMessage, [encodeText(id), includeDeleted], scope);
    return this.#io.message((await this.#io.rows(read))[0]);
  }

  async flagMessage({ id, flagged, scope }: RequestOf<"flagMessage">) {
    const write = stmt(this.#q.flagMessage, [encodeText(id), flagged], scope);
    return this.#io.message((await this.#io.written(write))[0]);
  }

  softDeleteMessage({ id, deletedAt, scope }: RequestOf<"softDeleteMessage">) {
    return this.#io.done(stmt(this.#q.softDeleteMessage, [encodeText(id), deletedAt], scope));
  }

  restoreMessage({ id, scope }: RequestOf<"restoreMessage">) {
    return this.#io.done(stmt(this.#q.restoreMessage, [encodeText(id)], scope));
  }

  async deleteMessage({ id, scope }: RequestOf<"deleteMessage">) {
    const write = stmt(this.#q.deleteMessage, [encodeText(id)], scope);
    return (await this.#io.changed(write)) > 0;
  }

  purgeDeleted({ before, scope }: RequestOf<"purgeDeleted">) {
    return this.#io.counts(stmt(this.#q.purgeDeleted, [before], scope));
  }

  getMessagesByConversationId({
    scope,
    conversationId,
    includeDeleted,
    page,
  }: RequestOf<"getMessagesByConversationId">) {
    return this.#io.sequencedMessages(
      this.#q.listMessages(scope, conversationId, page.after, page.take, includeDeleted),
    );
  }

  getImmediateContext({ scope, conversationId, n }: RequestOf<"getImmediateContext">) {
    return this.#io.messages(
      stmt(this.#q.immediateContext, [encodeText(conversationId), n], scope),
    );
  }

  /** One trace through `ms_put_turn_trace` (no recordset), more through `ms_put_turn_traces`. */
  async storeTurnTraces({ traces }: RequestOf<"storeTurnTraces">) {
    if (traces.length === 1) {
      const trace = traces[0]!;
      const [row] = await this.#io.written(stmt(this.#q.upsertTrace, traceParams(trace)));
      // Text columns arrive NUL-escaped (the jsonb of a batch arrives decoded).
      const owners = [row?.stored_user_id, row?.stored_tenant_id].map((v) =>
        decodeNullable((v ?? null) as string | null),
      );
      return asStoredTraces(traces, [[trace.id, ...owners]]);
    }
    const [row] = await this.#io.written(stmt(this.#q.putTraces, [batchParam(traces)]));
    return asStoredTraces(traces, row?.stored);
  }

  async getTurnTraceByMessageId({
    id,
    includeDeleted,
    scope,
  }: RequestOf<"getTurnTraceByMessageId">) {
    const read = stmt(this.#q.readTraceByMessage, [encodeText(id), includeDeleted], scope);
    return this.#io.trace((await this.#io.rows(read))[0]);
  }

  queryTurnTraces({ scope, filter, page }: RequestOf<"queryTurnTraces">) {
    return this.#laggingIo.traces(this.#q.listTraces(scope, filter, page.after, page.take));
  }

  async summarizeUsage({ scope, query }: RequestOf<"summarizeUsage">) {
    const bucketMs = query.bucket === "hour" ? HOUR_MS : DAY_MS;
    const rows = await this.#laggingIo.rows(this.#q.usage(scope, { ...query, bucketMs }));
    return finalizeUsage(rows.map(toUsageSums));
  }

  deleteUserData({ scope }: RequestOf<"deleteUserData">) {
    const owners = [encodeText(scope.userId), encodeNullable(scope.tenantId ?? null)];
    return this.#io.counts(stmt(this.#q.deleteUserData, owners));
  }

  searchMessages({ scope, query }: RequestOf<"searchMessages">) {
    const { vector, cubes } = this.#search;
    const search = vector
      ? this.#q.vectorSearch(scope, query)
      : this.#q.search(scope, query, cubes);
    return this.#laggingIo.hits(search, query.embedding);
  }

  async searchConversations({ scope, filter, page }: RequestOf<"searchConversations">) {
    const search = textSearchStatement(this.schema, scope, filter, page);
    return toTextSearchHits(await this.#laggingIo.rows(search), this.schema);
  }

  listPendingEmbeddings({ scope, filter, page }: RequestOf<"listPendingEmbeddings">) {
    return this.#io.messages(this.#q.listPending(scope, filter, page.after, page.take));
  }

  setEmbeddings({ scope, updates }: RequestOf<"setEmbeddings">) {
    return this.#io.changed(stmt(this.#q.setEmbeddings, [toJsonParam(updates)], scope));
  }

  /** One statement: `ms_put_checkpoint` (conversation, messages, traces, values, checkpoint). */
  async putCheckpoint({
    conversation,
    checkpoint,
    messages,
    traces,
    now,
  }: RequestOf<"putCheckpoint">) {
    const params = putCheckpointParams(conversation, checkpoint, messages, traces, now);
    await this.#io.written(stmt(this.#cq.putCheckpoint, params));
  }

  async putCheckpointWrites({ conversation, writes }: RequestOf<"putCheckpointWrites">) {
    await this.#io.written(
      stmt(this.#cq.putCheckpointWrites, putWritesParams(conversation, writes)),
    );
  }

  async getCheckpoint({ conversationId, namespace, id, scope }: RequestOf<"getCheckpoint">) {
    const values = [encodeText(conversationId), encodeText(namespace), encodeNullable(id)];
    const [row] = await this.#io.rows(stmt(this.#cq.readCheckpoint, values, scope));
    return row ? toStoredCheckpoint(row, `${this.schema}.checkpoints`) : null;
  }

  async listCheckpoints({ scope, filter, page }: RequestOf<"listCheckpoints">) {
    const rows = await this.#io.rows(this.#cq.listCheckpoints(scope, filter, page));
    return rows.map((row) => toStoredCheckpoint(row, `${this.schema}.checkpoints`));
  }

  deleteCheckpoints({ id, scope }: RequestOf<"deleteCheckpoints">) {
    return this.#io.done(stmt(this.#cq.deleteCheckpoints, [encodeText(id)], scope));
  }

  async close(): Promise<void> {
    this.#runner.close();
    this.#lagging.close();
    if (this.#ownsPool) await endPool(this.pool);
    if (this.#replica?.ownsPool) await endPool(this.#replica.pool);
  }

  /** `pg`'s errors as core's: see `toStoreError`. */
  mapError(error: unknown): MessageStoreError {
    return toStoreError(error);
  }
}
