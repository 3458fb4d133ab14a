import type { TurnTrace } from "@message-store/core";
import { PostgresMessageStore } from "@message-store/postgres";
import { createTestDatabase, dropTestDatabase } from "@message-store/test-servers";
import pg from "pg";
import { BASE_TIME } from "../data.js";
import { AGENTS, PER_CONVERSATION, STEP_MS, TRACE_EVERY, USERS } from "./synthetic.js";
import type { BenchTarget, BulkLoader, RawStore } from "./types.js";

/** Same column list, in the same order, as the adapter reads. */
const MESSAGE_COLUMNS = `id, conversation_id, user_id, role, original_content, enhanced_message,
  explicit_context, episode_id, is_flagged, is_continuation, invoked_flows, invoked_tools,
  reasoning_steps, entities, intent, sentiment, sentiment_score, "timestamp", tool_calls,
  tool_call_id, tool_name, metadata, embedding, seq`;
const TRACE_COLUMNS = `id, message_id, conversation_id, agent_id, user_id, "timestamp", total_tokens,
  total_latency_ms, llm_calls, task_emissions, tool_traces, slot_events, flow_events, errors,
  reasoning_steps, metadata`;

/** The batch as `JSON.stringify` writes it, read with the model's own (camelCase) keys. */
const INSERT_MESSAGES = `INSERT INTO messages (id, conversation_id, user_id, role, original_content,
  enhanced_message, explicit_context, episode_id, is_flagged, is_continuation, invoked_flows,
  invoked_tools, reasoning_steps, entities, intent, sentiment, sentiment_score, "timestamp",
  tool_calls, tool_call_id, tool_name, metadata, embedding)
SELECT * FROM jsonb_to_recordset($1::jsonb) AS x("id" text, "conversationId" text, "userId" text,
  "role" text, "originalContent" text, "enhancedMessage" text, "explicitContext" text,
  "episodeId" text, "isFlagged" boolean, "isContinuation" boolean, "invokedFlows" jsonb,
  "invokedTools" jsonb, "reasoningSteps" jsonb, "entities" jsonb, "intent" text, "sentiment" text,
  "sentimentScore" double precision, "timestamp" bigint, "toolCalls" jsonb, "toolCallId" text,
  "toolName" text, "metadata" jsonb, "embedding" double precision[])`;

const INSERT_TRACE = `INSERT INTO turn_traces (id, message_id, conversation_id, agent_id, user_id,
  "timestamp", total_tokens, total_latency_ms, llm_calls, task_emissions, tool_traces, slot_events,
  flow_events, errors, reasoning_steps, metadata)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`;

const INSERT_TRACES = `INSERT INTO turn_traces (id, message_id, conversation_id, agent_id, user_id,
  "timestamp", total_tokens, total_latency_ms, llm_calls, task_emissions, tool_traces, slot_events,
  flow_events, errors, reasoning_steps, metadata)
SELECT * FROM jsonb_to_recordset($1::jsonb) AS x("id" text, "messageId" text,
  "conversationId" text, "agentId" text, "userId" text, "timestamp" bigint, "totalTokens" bigint,
  "totalLatencyMs" double precision, "llmCalls" jsonb, "taskEmissions" jsonb, "toolTraces" jsonb,
  "slotEvents" jsonb, "flowEvents" jsonb, "errors" jsonb, "reasoningSteps" jsonb, "metadata" jsonb)`;

/** The flip query, as the adapter sends it. */
const FLIP = `SELECT * FROM (SELECT ${MESSAGE_COLUMNS} FROM messages
  WHERE conversation_id = $1 AND NOT is_flagged
  ORDER BY "timestamp" DESC, seq DESC LIMIT $2) newest ORDER BY "timestamp", seq`;

const j = JSON.stringify;

/** Hand-written SQL on a pool of its own (same size as the store's) against the same tables. */
function rawStore(pool: pg.Pool): RawStore {
  return {
    async storeConversation(c) {
      await pool.query(
        `INSERT INTO conversations (id, user_id, agent_id, title, created_at, updated_at, tags, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [c.id, c.userId, c.agentId, c.title, c.createdAt, c.updatedAt, j(c.tags), j(c.metadata)],
      );
    },
    async storeMessages(messages) {
      await pool.query(INSERT_MESSAGES, [j(messages)]);
    },
    async immediateContext(conversationId, n) {
      const { rows } = await pool.query(FLIP, [conversationId, n]);
      return rows;
    },
    async immediateContextPrepared(conversationId, n) {
      const { rows } = await pool.query({
        name: "bench_flip",
        text: FLIP,
        values: [conversationId, n],
      });
      return rows;
    },
    async storeTrace(t) {
      await pool.query(INSERT_TRACE, traceValues(t));
    },
    async tracesByAgent(agentId, since, until) {
      const { rows } = await pool.query(
        `SELECT ${TRACE_COLUMNS} FROM turn_traces
          WHERE agent_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3
          ORDER BY "timestamp" DESC, id DESC`,
        [agentId, since, until],
      );
      return rows;
    },
    async deleteConversation(id) {
      await pool.query("DELETE FROM conversations WHERE id = $1", [id]);
    },
  };
}

function traceValues(t: TurnTrace): unknown[] {
  return [
    t.id,
    t.messageId,
    t.conversationId,
    t.agentId,
    t.userId,
    t.timestamp,
    t.totalTokens,
    t.totalLatencyMs,
    j(t.llmCalls),
    j(t.taskEmissions),
    j(t.toolTraces),
    j(t.slotEvents),
    j(t.flowEvents),
    j(t.errors),
    j(t.reasoningSteps),
    j(t.metadata),
  ];
}

const SYNTH_TRACE_SQL = `INSERT INTO turn_traces (id, message_id, conversation_id, agent_id,
  user_id, "timestamp", total_tokens, total_latency_ms, llm_calls, task_emissions, tool_traces,
  slot_events, flow_events, errors, reasoning_steps, metadata)
SELECT 'load-t-' || lpad(g::text, 8, '0'), 'load-m-' || lpad(g::text, 8, '0'),
       'load-c-' || lpad((g / ${PER_CONVERSATION})::text, 7, '0'),
       'agent-' || ((g / ${PER_CONVERSATION}) % ${AGENTS}),
       'load-u-' || ((g / ${PER_CONVERSATION}) % ${USERS}), ts,
       800 + g % 400 + 120 + g % 90 + 150, 900 + g % 700,
       jsonb_build_array(
         jsonb_build_object('purpose', 'enhancement', 'model', 'gpt-4o-mini', 'promptTokens', 100,
           'completionTokens', 50, 'latencyMs', 180, 'costUsd', 0.00004, 'startedAt', ts - 1500,
           'error', null),
         jsonb_build_object('purpose', 'agent_loop', 'model', 'gpt-4o', 'promptTokens', 800 + g % 400,
           'completionTokens', 120 + g % 90, 'latencyMs', 700 + g % 600, 'costUsd', 0.0025,
           'startedAt', ts - 1200, 'error', null)),
       '[]',
       CASE WHEN g % 4 = 1 THEN jsonb_build_array(jsonb_build_object('toolName', 'orders.lookup',
         'input', jsonb_build_object('order', g), 'generationAttempts', '[]'::jsonb, 'finalScript', 'return lookup(order)',
         'finalData', jsonb_build_object('status', 'shipped'), 'stdout', null, 'traceback', null,
         'outputBytes', 42, 'peakMemoryBytes', null, 'durationMs', 35, 'exitCode', 0))
         ELSE '[]'::jsonb END,
       '[]', '[{"flow": "answer", "event": "completed"}]', '[]',
       '["understand the request", "answer"]', '{"source": "bench"}'
  FROM (SELECT k * ${TRACE_EVERY} + 1 AS g, $3::bigint + (k * ${TRACE_EVERY} + 1) * ${STEP_MS} AS ts
          FROM generate_series($1::bigint, $2::bigint - 1) AS k) s`;

/**
 * The synthetic dataset (see `synthetic.ts`) generated server-side with `generate_series`,
 * 100k rows per statement, into the adapter's own tables after the store migrated them; then
 * `VACUUM ANALYZE`, as a production table would have been by autovacuum.
 */
export function loader(pool: pg.Pool, counts: { messages: number; traces: number }): BulkLoader {
  return {
    method:
      "INSERT … SELECT FROM generate_series into the adapter's tables (100k rows per statement), then VACUUM ANALYZE",
    async grow(target) {
      const chunk = 100_000;
      for (let from = counts.messages; from < target.messages; from += chunk) {
        const to = Math.min(target.messages, from + chunk);
        const c0 = Math.ceil(from / PER_CONVERSATION);
        const c1 = Math.ceil(to / PER_CONVERSATION);
        await pool.query(
          `INSERT INTO conversations (id, user_id, agent_id, title, created_at, updated_at, tags,
             metadata, last_message_at)
           SELECT 'load-c-' || lpad(c::text, 7, '0'), 'load-u-' || (c % ${USERS}),
                  'agent-' || (c % ${AGENTS}), 'Conversation ' || c, $3::bigint, $3::bigint,
                  '["bench"]', '{"source": "bench"}',
                  $3::bigint + ((c + 1) * ${PER_CONVERSATION} - 1) * ${STEP_MS}
             FROM generate_series($1::bigint, $2::bigint - 1) AS c`,
          [c0, c1, BASE_TIME],
        );
        await pool.query(
          `INSERT INTO messages (id, conversation_id, user_id, role, original_content,
             "timestamp", metadata)
           SELECT 'load-m-' || lpad(g::text, 8, '0'),
                  'load-c-' || lpad((g / ${PER_CONVERSATION})::text, 7, '0'),
                  'load-u-' || ((g / ${PER_CONVERSATION}) % ${USERS}),
                  CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
                  'Message ' || g || ': ' || repeat('the agent reads the request and answers with a short summary ', 5),
                  $3::bigint + g * ${STEP_MS}, '{"source": "bench"}'
             FROM generate_series($1::bigint, $2::bigint - 1) AS g ORDER BY g`,
          [from, to, BASE_TIME],
        );
        counts.messages = to;
      }
      for (let from = counts.traces; from < target.traces; from += chunk) {
        const to = Math.min(target.traces, from + chunk);
        await pool.query(SYNTH_TRACE_SQL, [from, to, BASE_TIME]);
        counts.traces = to;
      }
      await pool.query("VACUUM ANALYZE conversations, messages, turn_traces");
    },
  };
}

/** Options of {@link openPostgres}. */
export interface PostgresBenchOptions {
  /** Server URL (a database is created on it for the run, and dropped after). */
  url: string;
  /** How the server was obtained, for the report. */
  origin: string;
  /** Connections in each pool (store's and raw's). */
  poolSize: number;
}

/** The Postgres target: a fresh database, the store (own pool) and the raw pool, same size. */
export async function openPostgres(
  options: PostgresBenchOptions,
): Promise<BenchTarget & { pool: pg.Pool; dsn: string }> {
  const dsn = await createTestDatabase(options.url, "bench");
  const store: PostgresMessageStore = await PostgresMessageStore.open({
    storage: "postgres",
    dsn,
    pool_min: 0,
    pool_max: options.poolSize,
  });
  const pool = new pg.Pool({ connectionString: dsn, max: options.poolSize });
  pool.on("error", () => {});
  const { rows } = await pool.query(
    "SELECT current_setting('server_version') AS v, current_setting('fsync') AS f, current_setting('shared_buffers') AS sb",
  );
  const counts = { messages: 0, traces: 0 };
  const raw = rawStore(pool);
  return {
    name: "postgres",
    server: `PostgreSQL ${rows[0].v} (${options.origin}; fsync=${rows[0].f}, shared_buffers=${rows[0].sb}); pools of ${options.poolSize} connections each`,
    store,
    raw,
    loader: loader(pool, counts),
    pool,
    dsn,
    poolSize: options.poolSize,
    async seed(_side, conversation, messages, traces) {
      await raw.storeConversation(conversation);
      for (let i = 0; i < messages.length; i += 1000)
        await raw.storeMessages(messages.slice(i, i + 1000));
      for (let i = 0; i < traces.length; i += 1000)
        await pool.query(INSERT_TRACES, [j(traces.slice(i, i + 1000))]);
    },
    async openCounted() {
      let log: string[] = [];
      class CountingClient extends pg.Client {
        override query(...args: any[]): any {
          const config = args[0];
          const text: string = typeof config === "string" ? config : (config?.text ?? "");
          log.push(text.replace(/\s+/g, " ").trim().slice(0, 40));
          return (super.query as any)(...args);
        }
      }
      const countingPool = new pg.Pool({ connectionString: dsn, max: 2, Client: CountingClient });
      const counted = await PostgresMessageStore.open({
        storage: "postgres",
        pool: countingPool,
        schema: "round_trips",
      });
      return {
        store: counted,
        async roundTrips(call) {
          log = [];
          await call();
          return log;
        },
        async close() {
          await counted.close();
          await countingPool.end();
        },
      };
    },
    async reset() {
      await pool.query("TRUNCATE conversations, messages, turn_traces CASCADE");
      counts.messages = 0;
      counts.traces = 0;
    },
    async close() {
      await store.close();
      await pool.end();
      await dropTestDatabase(dsn).catch(() => {});
    },
  };
}
