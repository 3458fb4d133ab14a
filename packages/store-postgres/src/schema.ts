/**
 * Every piece of DDL: the versioned migrations and the SQL that applies them. DML lives in
 * `queries.ts`. The schema name is an identifier, never a value: core's config schema restricts it
 * to `[A-Za-z_][A-Za-z0-9_]{0,62}` and {@link quoteIdent} quotes it.
 */

/** Quotes an SQL identifier (`my schema` → `"my schema"`). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes an SQL string literal. Only used for DDL-time constants built from identifiers. */
function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Name of the table that records which migrations ran. */
export const MIGRATIONS_TABLE = "message_store_migrations";

/** SQLSTATE raised by `ms_put_messages` when a message names a conversation that does not exist. */
export const SQLSTATE_MISSING_CONVERSATION = "MS001";
/** SQLSTATE raised by `ms_put_messages` when an upsert would move a message to another conversation. */
export const SQLSTATE_MOVED_MESSAGE = "MS002";

/** One numbered, idempotent schema step. */
export interface Migration {
  version: number;
  name: string;
  /** The step's DDL for a schema (quoted identifier); several statements, no parameters. */
  sql(schema: string): string;
}

/**
 * Version 1 is the original design: three tables, JSONB for nested data, and its four named
 * indexes. Later versions add what production needs. Steps only ever get appended.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "original design: conversations, messages, turn_traces",
    sql: (s) => `
CREATE TABLE IF NOT EXISTS ${s}.conversations (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  agent_id text COLLATE "C",
  title text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  tags jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS idx_conv_user ON ${s}.conversations (user_id, updated_at DESC);
CREATE TABLE IF NOT EXISTS ${s}.messages (
  id text COLLATE "C" PRIMARY KEY,
  conversation_id text COLLATE "C" NOT NULL
    CONSTRAINT messages_conversation_id_fkey REFERENCES ${s}.conversations (id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL,
  role text NOT NULL,
  original_content text NOT NULL,
  enhanced_message text,
  explicit_context text,
  episode_id text COLLATE "C",
  is_flagged boolean NOT NULL DEFAULT false,
  is_continuation boolean NOT NULL DEFAULT false,
  invoked_flows jsonb NOT NULL DEFAULT '[]',
  invoked_tools jsonb NOT NULL DEFAULT '[]',
  reasoning_steps jsonb NOT NULL DEFAULT '[]',
  entities jsonb NOT NULL DEFAULT '[]',
  intent text,
  sentiment text,
  sentiment_score double precision NOT NULL DEFAULT 0,
  "timestamp" bigint NOT NULL,
  tool_calls jsonb NOT NULL DEFAULT '[]',
  tool_call_id text COLLATE "C",
  tool_name text,
  metadata jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS idx_msg_conv ON ${s}.messages (conversation_id, "timestamp");
CREATE INDEX IF NOT EXISTS idx_msg_flagged ON ${s}.messages ("timestamp" DESC) WHERE is_flagged;
CREATE TABLE IF NOT EXISTS ${s}.turn_traces (
  id text COLLATE "C" PRIMARY KEY,
  message_id text COLLATE "C" NOT NULL
    CONSTRAINT turn_traces_message_id_key UNIQUE
    CONSTRAINT turn_traces_message_id_fkey REFERENCES ${s}.messages (id) ON DELETE CASCADE,
  conversation_id text COLLATE "C" NOT NULL,
  agent_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C",
  "timestamp" bigint NOT NULL,
  total_tokens bigint NOT NULL,
  total_latency_ms double precision NOT NULL,
  llm_calls jsonb NOT NULL DEFAULT '[]',
  task_emissions jsonb NOT NULL DEFAULT '[]',
  tool_traces jsonb NOT NULL DEFAULT '[]',
  slot_events jsonb NOT NULL DEFAULT '[]',
  flow_events jsonb NOT NULL DEFAULT '[]',
  errors jsonb NOT NULL DEFAULT '[]',
  reasoning_steps jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS idx_tt_agent_time ON ${s}.turn_traces (agent_id, "timestamp" DESC);
CREATE INDEX IF NOT EXISTS idx_tt_tool_gin ON ${s}.turn_traces USING gin (tool_traces jsonb_path_ops);
`,
  },
  {
    version: 2,
    name: "receipt order (seq) and conversation activity",
    // Rows from version 1 get sequence numbers in (timestamp, id) order, the best order known.
    sql: (s) => {
      const seq = quoteLiteral(`${s}.messages_seq`);
      return `
CREATE SEQUENCE IF NOT EXISTS ${s}.messages_seq AS bigint;
ALTER TABLE ${s}.messages ADD COLUMN IF NOT EXISTS seq bigint;
UPDATE ${s}.messages m SET seq = b.base + b.n
  FROM (SELECT id, row_number() OVER (ORDER BY "timestamp", id) AS n,
               (SELECT coalesce(max(seq), 0) FROM ${s}.messages) AS base
          FROM ${s}.messages WHERE seq IS NULL) b
 WHERE m.id = b.id;
SELECT setval(${seq},
  GREATEST((SELECT coalesce(max(seq), 0) FROM ${s}.messages), (SELECT last_value FROM ${s}.messages_seq)),
  EXISTS (SELECT 1 FROM ${s}.messages) OR (SELECT is_called FROM ${s}.messages_seq));
ALTER TABLE ${s}.messages ALTER COLUMN seq SET DEFAULT nextval(${seq}), ALTER COLUMN seq SET NOT NULL;
ALTER SEQUENCE ${s}.messages_seq OWNED BY ${s}.messages.seq;
DROP INDEX IF EXISTS ${s}.idx_msg_conv;
CREATE INDEX idx_msg_conv ON ${s}.messages (conversation_id, "timestamp", seq);
ALTER TABLE ${s}.conversations ADD COLUMN IF NOT EXISTS last_message_at bigint;
UPDATE ${s}.conversations c SET last_message_at = m.ts
  FROM (SELECT conversation_id, max("timestamp") AS ts FROM ${s}.messages GROUP BY conversation_id) m
 WHERE c.id = m.conversation_id AND (c.last_message_at IS NULL OR c.last_message_at < m.ts);
ALTER TABLE ${s}.conversations ADD COLUMN IF NOT EXISTS last_activity_at bigint
  GENERATED ALWAYS AS (GREATEST(updated_at, COALESCE(last_message_at, updated_at))) STORED;
DROP INDEX IF EXISTS ${s}.idx_conv_user;
CREATE INDEX IF NOT EXISTS idx_conv_user_activity
  ON ${s}.conversations (user_id, last_activity_at DESC, id);
DROP INDEX IF EXISTS ${s}.idx_tt_agent_time;
CREATE INDEX idx_tt_agent_time ON ${s}.turn_traces (agent_id, "timestamp" DESC, id DESC);
`;
    },
  },
  {
    version: 3,
    name: "analytics and semantic search",
    sql: (s) => `
ALTER TABLE ${s}.messages ADD COLUMN IF NOT EXISTS embedding double precision[];
CREATE INDEX IF NOT EXISTS idx_tt_llm_gin ON ${s}.turn_traces USING gin (llm_calls jsonb_path_ops);
CREATE INDEX IF NOT EXISTS idx_tt_errors_gin ON ${s}.turn_traces USING gin (errors jsonb_path_ops);
CREATE INDEX IF NOT EXISTS idx_tt_time ON ${s}.turn_traces ("timestamp" DESC, id DESC);
CREATE INDEX IF NOT EXISTS idx_tt_conv ON ${s}.turn_traces (conversation_id, "timestamp" DESC, id DESC);
`,
  },
  {
    version: 4,
    name: "batch upsert and user erasure functions",
    sql: (s) => `
CREATE OR REPLACE FUNCTION ${s}.ms_put_messages(p_batch jsonb) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  conv_ids text[];
  conv_ts bigint[];
  locked bigint;
  written bigint;
  bad record;
BEGIN
  SELECT array_agg(g.conversation_id ORDER BY g.conversation_id COLLATE "C"),
         array_agg(g.ts ORDER BY g.conversation_id COLLATE "C")
    INTO conv_ids, conv_ts
    FROM (SELECT x.conversation_id, max(x."timestamp") AS ts
            FROM jsonb_to_recordset(p_batch) AS x(conversation_id text, "timestamp" bigint)
           GROUP BY x.conversation_id) g;
  -- Lock the conversations in one order, so concurrent batches queue instead of deadlocking;
  -- the lock also keeps them from being deleted before this statement ends.
  SELECT count(*) INTO locked FROM (
    SELECT 1 FROM ${s}.conversations c WHERE c.id = ANY (conv_ids) ORDER BY c.id FOR NO KEY UPDATE
  ) l;
  IF locked < cardinality(conv_ids) THEN
    SELECT x.id, x.conversation_id INTO bad
      FROM jsonb_to_recordset(p_batch) AS x(id text, conversation_id text)
     WHERE NOT EXISTS (SELECT 1 FROM ${s}.conversations c WHERE c.id = x.conversation_id)
     LIMIT 1;
    RAISE EXCEPTION 'conversation does not exist' USING ERRCODE = '${SQLSTATE_MISSING_CONVERSATION}',
      DETAIL = jsonb_build_object('message', bad.id, 'conversation', bad.conversation_id)::text;
  END IF;
  INSERT INTO ${s}.messages AS m (id, conversation_id, user_id, role, original_content,
      enhanced_message, explicit_context, episode_id, is_flagged, is_continuation, invoked_flows,
      invoked_tools, reasoning_steps, entities, intent, sentiment, sentiment_score, "timestamp",
      tool_calls, tool_call_id, tool_name, metadata, embedding)
  SELECT x.id, x.conversation_id, x.user_id, x.role, x.original_content, x.enhanced_message,
         x.explicit_context, x.episode_id, x.is_flagged, x.is_continuation, x.invoked_flows,
         x.invoked_tools, x.reasoning_steps, x.entities, x.intent, x.sentiment, x.sentiment_score,
         x."timestamp", x.tool_calls, x.tool_call_id, x.tool_name, x.metadata, x.embedding
    FROM ROWS FROM (jsonb_to_recordset(p_batch) AS (id text, conversation_id text, user_id text,
           role text, original_content text, enhanced_message text, explicit_context text,
           episode_id text, is_flagged boolean, is_continuation boolean, invoked_flows jsonb,
           invoked_tools jsonb, reasoning_steps jsonb, entities jsonb, intent text, sentiment text,
           sentiment_score double precision, "timestamp" bigint, tool_calls jsonb,
           tool_call_id text, tool_name text, metadata jsonb, embedding double precision[]))
         WITH ORDINALITY AS x(id, conversation_id, user_id, role, original_content,
           enhanced_message, explicit_context, episode_id, is_flagged, is_continuation,
           invoked_flows, invoked_tools, reasoning_steps, entities, intent, sentiment,
           sentiment_score, "timestamp", tool_calls, tool_call_id, tool_name, metadata, embedding,
           ord)
   ORDER BY x.ord -- seq (the column default) is drawn in this order: array order = receipt order
  ON CONFLICT (id) DO UPDATE SET
    user_id = EXCLUDED.user_id, role = EXCLUDED.role, original_content = EXCLUDED.original_content,
    enhanced_message = EXCLUDED.enhanced_message, explicit_context = EXCLUDED.explicit_context,
    episode_id = EXCLUDED.episode_id, is_flagged = EXCLUDED.is_flagged,
    is_continuation = EXCLUDED.is_continuation, invoked_flows = EXCLUDED.invoked_flows,
    invoked_tools = EXCLUDED.invoked_tools, reasoning_steps = EXCLUDED.reasoning_steps,
    entities = EXCLUDED.entities, intent = EXCLUDED.intent, sentiment = EXCLUDED.sentiment,
    sentiment_score = EXCLUDED.sentiment_score, "timestamp" = EXCLUDED."timestamp",
    tool_calls = EXCLUDED.tool_calls, tool_call_id = EXCLUDED.tool_call_id,
    tool_name = EXCLUDED.tool_name, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding
  WHERE m.conversation_id = EXCLUDED.conversation_id;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written < jsonb_array_length(p_batch) THEN
    SELECT x.id, x.conversation_id, m.conversation_id AS current INTO bad
      FROM jsonb_to_recordset(p_batch) AS x(id text, conversation_id text)
      JOIN ${s}.messages m ON m.id = x.id
     WHERE m.conversation_id <> x.conversation_id
     LIMIT 1;
    RAISE EXCEPTION 'message cannot move to another conversation'
      USING ERRCODE = '${SQLSTATE_MOVED_MESSAGE}',
      DETAIL = jsonb_build_object('message', bad.id, 'conversation', bad.conversation_id,
                                  'current', bad.current)::text;
  END IF;
  UPDATE ${s}.conversations c SET last_message_at = u.ts
    FROM unnest(conv_ids, conv_ts) AS u(id, ts)
   WHERE c.id = u.id AND (c.last_message_at IS NULL OR c.last_message_at < u.ts);
END
$fn$;

CREATE OR REPLACE FUNCTION ${s}.ms_delete_user_data(p_user_id text)
RETURNS TABLE (deleted_conversations bigint, deleted_messages bigint, deleted_turn_traces bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  ids text[];
  n_conv bigint;
  n_msg bigint;
  n_tt bigint;
BEGIN
  -- Locking the conversations first stops new messages and traces from arriving, so the
  -- counts below are exactly what is removed.
  SELECT coalesce(array_agg(l.id), '{}') INTO ids FROM (
    SELECT c.id FROM ${s}.conversations c WHERE c.user_id = p_user_id ORDER BY c.id FOR UPDATE
  ) l;
  DELETE FROM ${s}.turn_traces t WHERE t.conversation_id = ANY (ids);
  GET DIAGNOSTICS n_tt = ROW_COUNT;
  DELETE FROM ${s}.messages m WHERE m.conversation_id = ANY (ids);
  GET DIAGNOSTICS n_msg = ROW_COUNT;
  DELETE FROM ${s}.conversations c WHERE c.id = ANY (ids);
  GET DIAGNOSTICS n_conv = ROW_COUNT;
  RETURN QUERY SELECT n_conv, n_msg, n_tt;
END
$fn$;
`,
  },
  {
    version: 5,
    name: "single-message and turn trace upsert functions",
    // PL/pgSQL keeps the plans of its statements for the session. The trace upsert was one WITH
    // statement parsed and planned on every call (about 0.2 ms, more than the write itself), and
    // a single message went through the batch function's recordset, sort and aggregate; these
    // two do the same work for less (see BENCHMARKS.md, Findings).
    sql: (s) => `
CREATE OR REPLACE FUNCTION ${s}.ms_put_message(p_message jsonb) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  x record;
  written bigint;
  current_conversation text;
BEGIN
  SELECT * INTO x FROM jsonb_to_record(p_message) AS r(id text, conversation_id text,
    user_id text, role text, original_content text, enhanced_message text,
    explicit_context text, episode_id text, is_flagged boolean, is_continuation boolean,
    invoked_flows jsonb, invoked_tools jsonb, reasoning_steps jsonb, entities jsonb, intent text,
    sentiment text, sentiment_score double precision, "timestamp" bigint, tool_calls jsonb,
    tool_call_id text, tool_name text, metadata jsonb, embedding double precision[]);
  -- Same lock as ms_put_messages: the conversation cannot be deleted before this statement ends.
  PERFORM 1 FROM ${s}.conversations c WHERE c.id = x.conversation_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'conversation does not exist' USING ERRCODE = '${SQLSTATE_MISSING_CONVERSATION}',
      DETAIL = jsonb_build_object('message', x.id, 'conversation', x.conversation_id)::text;
  END IF;
  INSERT INTO ${s}.messages AS m (id, conversation_id, user_id, role, original_content,
      enhanced_message, explicit_context, episode_id, is_flagged, is_continuation, invoked_flows,
      invoked_tools, reasoning_steps, entities, intent, sentiment, sentiment_score, "timestamp",
      tool_calls, tool_call_id, tool_name, metadata, embedding)
  VALUES (x.id, x.conversation_id, x.user_id, x.role, x.original_content, x.enhanced_message,
      x.explicit_context, x.episode_id, x.is_flagged, x.is_continuation, x.invoked_flows,
      x.invoked_tools, x.reasoning_steps, x.entities, x.intent, x.sentiment, x.sentiment_score,
      x."timestamp", x.tool_calls, x.tool_call_id, x.tool_name, x.metadata, x.embedding)
  ON CONFLICT (id) DO UPDATE SET
    user_id = EXCLUDED.user_id, role = EXCLUDED.role, original_content = EXCLUDED.original_content,
    enhanced_message = EXCLUDED.enhanced_message, explicit_context = EXCLUDED.explicit_context,
    episode_id = EXCLUDED.episode_id, is_flagged = EXCLUDED.is_flagged,
    is_continuation = EXCLUDED.is_continuation, invoked_flows = EXCLUDED.invoked_flows,
    invoked_tools = EXCLUDED.invoked_tools, reasoning_steps = EXCLUDED.reasoning_steps,
    entities = EXCLUDED.entities, intent = EXCLUDED.intent, sentiment = EXCLUDED.sentiment,
    sentiment_score = EXCLUDED.sentiment_score, "timestamp" = EXCLUDED."timestamp",
    tool_calls = EXCLUDED.tool_calls, tool_call_id = EXCLUDED.tool_call_id,
    tool_name = EXCLUDED.tool_name, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding
  WHERE m.conversation_id = EXCLUDED.conversation_id;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written = 0 THEN
    SELECT m.conversation_id INTO current_conversation FROM ${s}.messages m WHERE m.id = x.id;
    RAISE EXCEPTION 'message cannot move to another conversation'
      USING ERRCODE = '${SQLSTATE_MOVED_MESSAGE}',
      DETAIL = jsonb_build_object('message', x.id, 'conversation', x.conversation_id,
                                  'current', current_conversation)::text;
  END IF;
  UPDATE ${s}.conversations c SET last_message_at = x."timestamp"
   WHERE c.id = x.conversation_id
     AND (c.last_message_at IS NULL OR c.last_message_at < x."timestamp");
END
$fn$;

CREATE OR REPLACE FUNCTION ${s}.ms_put_turn_trace(p_id text, p_message_id text,
  p_conversation_id text, p_agent_id text, p_user_id text, p_timestamp bigint,
  p_total_tokens bigint, p_total_latency_ms double precision, p_llm_calls jsonb,
  p_task_emissions jsonb, p_tool_traces jsonb, p_slot_events jsonb, p_flow_events jsonb,
  p_errors jsonb, p_reasoning_steps jsonb, p_metadata jsonb,
  OUT message_conversation_id text, OUT written bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
  SELECT m.conversation_id INTO message_conversation_id
    FROM ${s}.messages m WHERE m.id = p_message_id;
  -- Refused (nothing written) when the message is missing or in another conversation; the
  -- caller reports which from message_conversation_id.
  IF message_conversation_id IS DISTINCT FROM p_conversation_id THEN
    written := 0;
    RETURN;
  END IF;
  INSERT INTO ${s}.turn_traces AS t (id, message_id, conversation_id, agent_id, user_id,
      "timestamp", total_tokens, total_latency_ms, llm_calls, task_emissions, tool_traces,
      slot_events, flow_events, errors, reasoning_steps, metadata)
  VALUES (p_id, p_message_id, p_conversation_id, p_agent_id, p_user_id, p_timestamp,
      p_total_tokens, p_total_latency_ms, p_llm_calls, p_task_emissions, p_tool_traces,
      p_slot_events, p_flow_events, p_errors, p_reasoning_steps, p_metadata)
  ON CONFLICT (id) DO UPDATE SET message_id = EXCLUDED.message_id,
    conversation_id = EXCLUDED.conversation_id, agent_id = EXCLUDED.agent_id,
    user_id = EXCLUDED.user_id, "timestamp" = EXCLUDED."timestamp",
    total_tokens = EXCLUDED.total_tokens, total_latency_ms = EXCLUDED.total_latency_ms,
    llm_calls = EXCLUDED.llm_calls, task_emissions = EXCLUDED.task_emissions,
    tool_traces = EXCLUDED.tool_traces, slot_events = EXCLUDED.slot_events,
    flow_events = EXCLUDED.flow_events, errors = EXCLUDED.errors,
    reasoning_steps = EXCLUDED.reasoning_steps, metadata = EXCLUDED.metadata;
  written := 1;
END
$fn$;
`,
  },
];

/** The schema version this package writes and reads. */
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** SQL the migration runner uses, for one schema. */
export function migrationSql(schema: string) {
  const s = quoteIdent(schema);
  const table = `${s}.${MIGRATIONS_TABLE}`;
  return {
    /** Server facts checked before anything else, plus whether the migrations table exists. */
    probe: {
      text: `SELECT current_setting('server_version_num')::int AS server_version,
       current_setting('extra_float_digits')::int AS extra_float_digits,
       to_regclass($1) IS NOT NULL AS has_migrations`,
      values: [table],
    },
    appliedVersions: `SELECT version FROM ${table} ORDER BY version`,
    /** Serialises migrations of this schema across processes until the transaction ends. */
    lock: {
      text: "SELECT pg_advisory_xact_lock(hashtext($1))",
      values: [`@message-store/postgres:migrate:${schema}`],
    },
    createBase: `CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${table} (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`,
    record: `INSERT INTO ${table} (version, name) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING`,
    step: (m: Migration) => m.sql(s),
    begin: "BEGIN",
    commit: "COMMIT",
    rollback: "ROLLBACK",
  };
}
