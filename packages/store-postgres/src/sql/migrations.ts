import { checkpointTablesSql } from "./checkpoint-tables.js";
import { quoteLiteral } from "./quote.js";
import { SAFE_MAGNITUDE } from "./search-queries.js";

/**
 * The versioned DDL: tables, sequence and indexes, and the SQL the migration runner (`migrate.ts`)
 * sends. A step's text is frozen once released: later versions append steps and never edit one.
 * The columns here must match `columns.ts` (a test compares them with the catalog); the SQL
 * functions are not steps, since their text is derived (see `functions.ts`).
 */

/** Name of the table that records which migrations ran. */
export const MIGRATIONS_TABLE = "message_store_migrations";

/** One numbered, idempotent schema step. */
export interface Migration {
  version: number;
  name: string;
  /** The step's DDL for a schema (quoted identifier); several statements, no parameters. */
  sql(schema: string): string;
}

/** The steps, in order. Version 1 is the schema as first released. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "conversations, messages, turn_traces",
    sql: (s) => `
CREATE TABLE IF NOT EXISTS ${s}.conversations (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  tenant_id text COLLATE "C",
  agent_id text COLLATE "C",
  title text,
  description text,
  status text NOT NULL DEFAULT 'active',
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  deleted_at bigint,
  tags jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}',
  -- The newest message timestamp ever stored here; only moves forward.
  last_message_at bigint,
  last_activity_at bigint NOT NULL
    GENERATED ALWAYS AS (GREATEST(updated_at, COALESCE(last_message_at, updated_at))) STORED
);
CREATE INDEX IF NOT EXISTS idx_conv_user_activity
  ON ${s}.conversations (user_id, last_activity_at DESC, id);

CREATE SEQUENCE IF NOT EXISTS ${s}.messages_seq AS bigint;
CREATE TABLE IF NOT EXISTS ${s}.messages (
  id text COLLATE "C" PRIMARY KEY,
  conversation_id text COLLATE "C" NOT NULL
    CONSTRAINT messages_conversation_id_fkey REFERENCES ${s}.conversations (id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL,
  tenant_id text COLLATE "C",
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
  tool_arguments jsonb,
  tags jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}',
  trace_id text COLLATE "C",
  span_id text COLLATE "C",
  embedding double precision[],
  deleted_at bigint,
  -- Receipt order: drawn in batch array order, kept by an upsert.
  seq bigint NOT NULL DEFAULT nextval(${quoteLiteral(`${s}.messages_seq`)})
);
ALTER SEQUENCE ${s}.messages_seq OWNED BY ${s}.messages.seq;
CREATE INDEX IF NOT EXISTS idx_msg_conv ON ${s}.messages (conversation_id, "timestamp", seq);
CREATE INDEX IF NOT EXISTS idx_msg_flagged ON ${s}.messages ("timestamp" DESC) WHERE is_flagged;

CREATE TABLE IF NOT EXISTS ${s}.turn_traces (
  id text COLLATE "C" PRIMARY KEY,
  message_id text COLLATE "C" NOT NULL
    CONSTRAINT turn_traces_message_id_key UNIQUE
    CONSTRAINT turn_traces_message_id_fkey REFERENCES ${s}.messages (id) ON DELETE CASCADE,
  conversation_id text COLLATE "C" NOT NULL,
  agent_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C",
  tenant_id text COLLATE "C",
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
  metadata jsonb NOT NULL DEFAULT '{}',
  deleted_at bigint
);
CREATE INDEX IF NOT EXISTS idx_tt_agent_time
  ON ${s}.turn_traces (agent_id, "timestamp" DESC, id DESC);
CREATE INDEX IF NOT EXISTS idx_tt_time ON ${s}.turn_traces ("timestamp" DESC, id DESC);
CREATE INDEX IF NOT EXISTS idx_tt_conv
  ON ${s}.turn_traces (conversation_id, "timestamp" DESC, id DESC);
CREATE INDEX IF NOT EXISTS idx_tt_tool_gin ON ${s}.turn_traces USING gin (tool_traces jsonb_path_ops);
CREATE INDEX IF NOT EXISTS idx_tt_llm_gin ON ${s}.turn_traces USING gin (llm_calls jsonb_path_ops);
CREATE INDEX IF NOT EXISTS idx_tt_errors_gin ON ${s}.turn_traces USING gin (errors jsonb_path_ops);
`,
  },
  {
    version: 2,
    name: "indexes for users, tenants, soft delete and the embedding queue",
    sql: (s) => `
CREATE INDEX IF NOT EXISTS idx_conv_tenant ON ${s}.conversations (tenant_id, id)
  WHERE tenant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_conv_deleted ON ${s}.conversations (deleted_at)
  WHERE deleted_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_msg_user ON ${s}.messages (user_id, conversation_id);
CREATE INDEX IF NOT EXISTS idx_msg_tenant ON ${s}.messages (tenant_id, user_id)
  WHERE tenant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_msg_deleted ON ${s}.messages (deleted_at)
  WHERE deleted_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_msg_pending ON ${s}.messages (id)
  WHERE embedding IS NULL AND deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS idx_tt_user ON ${s}.turn_traces (user_id, "timestamp" DESC, id DESC);
CREATE INDEX IF NOT EXISTS idx_tt_tenant ON ${s}.turn_traces (tenant_id, "timestamp" DESC, id DESC)
  WHERE tenant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_tt_deleted ON ${s}.turn_traces (deleted_at)
  WHERE deleted_at IS NOT NULL;

-- Search keeps a row's length and squared norm, so ranking costs one dot product per row and
-- rows of another length are never read. NULL norm: an element PostgreSQL cannot square
-- without an underflow or overflow error (scored in JS instead; see search-queries.ts).
CREATE OR REPLACE FUNCTION ${s}.ms_squared_norm(v double precision[]) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  SELECT CASE WHEN bool_and(x = 0 OR abs(x) BETWEEN ${SAFE_MAGNITUDE.min} AND ${SAFE_MAGNITUDE.max}) IS NOT FALSE
              THEN coalesce(sum(x * x) FILTER (WHERE x = 0 OR abs(x) BETWEEN ${SAFE_MAGNITUDE.min} AND ${SAFE_MAGNITUDE.max}), 0)
         END
    FROM unnest(v) AS x
$fn$;
ALTER TABLE ${s}.messages
  ADD COLUMN IF NOT EXISTS embedding_dims integer
    GENERATED ALWAYS AS (cardinality(embedding)) STORED,
  ADD COLUMN IF NOT EXISTS embedding_norm double precision
    GENERATED ALWAYS AS (${s}.ms_squared_norm(embedding)) STORED;
`,
  },
  {
    version: 3,
    name: "pgvector: embedding_vector, HNSW cosine index, ms_vector_search (when available)",
    sql: (s) => `
DO $migration$
DECLARE
  iterative text := '';
BEGIN
  IF to_regtype('vector') IS NULL
     AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS vector;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pgvector is available but this role may not create it; search stays on float8[]';
    END;
  END IF;
  IF to_regtype('vector') IS NULL THEN
    RETURN;
  END IF;
  -- float4 vectors of the float8 embeddings; NULL where pgvector cannot hold one (magnitudes of
  -- 1e38 and more, over 16,000 dimensions) or for the zero vector (no direction): such rows are
  -- scored in JS.
  EXECUTE $ddl$
CREATE OR REPLACE FUNCTION ${s}.ms_to_vector(v double precision[]) RETURNS vector
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
BEGIN
  -- PL/pgSQL, not SQL: the planner would fold the cast of a CASE branch it need not take.
  -- pgvector holds at most 16,000 dimensions.
  IF cardinality(v) > 16000 OR EXISTS (SELECT 1 FROM unnest(v) AS x WHERE abs(x) >= 1e38)
     OR NOT EXISTS (SELECT 1 FROM unnest(v) AS x WHERE x <> 0) THEN
    RETURN NULL;
  END IF;
  RETURN v::vector;
END
$fn$$ddl$;
  EXECUTE $ddl$
ALTER TABLE ${s}.messages ADD COLUMN IF NOT EXISTS embedding_vector vector
  GENERATED ALWAYS AS (${s}.ms_to_vector(embedding)) STORED$ddl$;
  -- HNSW needs a fixed length: OpenAI's 1,536 (the seed's VECTOR(1536)). Other lengths are
  -- ranked by an exact scan (see the README to index another length).
  EXECUTE $ddl$
CREATE INDEX IF NOT EXISTS idx_msg_embedding_hnsw ON ${s}.messages
  USING hnsw ((embedding_vector::vector(1536)) vector_cosine_ops) WHERE embedding_dims = 1536$ddl$;
  -- The ids of the nearest messages under the filters, by cosine distance. Iterative index
  -- scans (pgvector 0.8) keep reading the index until enough rows pass the filters; older
  -- versions reserve the hnsw.* names without this one, so the setting is left out there.
  IF (SELECT string_to_array(split_part(extversion, '-', 1), '.')::int[] FROM pg_extension
       WHERE extname = 'vector') >= ARRAY[0, 8] THEN
    iterative := $set$SET hnsw.iterative_scan = 'strict_order'$set$;
  END IF;
  EXECUTE $ddl$
CREATE OR REPLACE FUNCTION ${s}.ms_vector_search(
  p_query double precision[], p_user_id text, p_tenant_id text, p_conversation_id text,
  p_include_deleted boolean, p_limit integer)
RETURNS TABLE (hit_id text) LANGUAGE plpgsql STABLE
$ddl$ || iterative || $ddl$
AS $fn$
DECLARE
  dims integer := cardinality(p_query);
  conditions text := '';
BEGIN
  IF p_user_id IS NOT NULL THEN conditions := conditions || ' AND m.user_id = $2'; END IF;
  IF p_tenant_id IS NOT NULL THEN conditions := conditions || ' AND m.tenant_id = $3'; END IF;
  IF p_conversation_id IS NOT NULL THEN
    conditions := conditions || ' AND m.conversation_id = $4';
  END IF;
  IF NOT p_include_deleted THEN conditions := conditions || ' AND m.deleted_at IS NULL'; END IF;
  RETURN QUERY EXECUTE format(
    'SELECT m.id FROM ${s}.messages m
      WHERE NOT m.is_flagged AND m.embedding_dims = %s AND m.embedding_vector IS NOT NULL%s
      ORDER BY m.embedding_vector::vector(%s) <=> $1::vector(%s)
      LIMIT $5', dims, conditions, dims, dims)
    USING p_query, p_user_id, p_tenant_id, p_conversation_id, p_limit;
END
$fn$$ddl$;
END
$migration$;
`,
  },
  {
    version: 4,
    name: "cube: embedding_cubes for a C-computed search prefilter (without pgvector, when available)",
    sql: (s) => `
DO $migration$
DECLARE
  ext text;
BEGIN
  -- pgvector serves searches where it exists (migration 3); contrib's cube (trusted since
  -- PostgreSQL 13, so a database owner may create it) speeds up the float8[] path otherwise.
  IF to_regtype('vector') IS NOT NULL THEN
    RETURN;
  END IF;
  IF to_regtype('cube') IS NULL
     AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'cube') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS cube;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'cube is available but this role may not create it; search scores every row';
    END;
  END IF;
  SELECT quote_ident(n.nspname) INTO ext FROM pg_extension e
    JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'cube';
  IF ext IS NULL OR to_regtype('cube') IS NULL THEN
    RETURN;
  END IF;
  -- cube holds at most 100 dimensions: an embedding as chunks of 96 (1,536 = 16 × 96).
  EXECUTE format($ddl$
CREATE OR REPLACE FUNCTION ${s}.ms_cube_chunks(v double precision[]) RETURNS %1$s.cube[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  SELECT array_agg(%1$s.cube(v[i:least(i + 95, cardinality(v))]) ORDER BY i)
    FROM generate_series(1, cardinality(v), 96) AS i
$fn$$ddl$, ext);
  EXECUTE $ddl$
ALTER TABLE ${s}.messages ADD COLUMN IF NOT EXISTS embedding_cubes cube[]
  GENERATED ALWAYS AS (${s}.ms_cube_chunks(embedding)) STORED$ddl$;
  -- Read whole on every search: stored out of line but uncompressed (decompressing costs more
  -- than it saves on numbers that barely compress).
  EXECUTE $ddl$ALTER TABLE ${s}.messages ALTER COLUMN embedding_cubes SET STORAGE EXTERNAL$ddl$;
END
$migration$;
`,
  },
  {
    version: 5,
    name: "checkpoints, checkpoint_values, checkpoint_writes",
    sql: (s) => checkpointTablesSql(s, null),
  },
  {
    version: 6,
    name: "message_ids, trace_ids: id lookups (partitioned layout)",
    // The default layout's primary keys hold the ids' uniqueness and serve lookups by id: nothing
    // to add. The partitioned layout's step is `idLookupsSql` (see `id-lookups.ts`, `migrate.ts`).
    sql: () => "SELECT 1;",
  },
];

/** The schema version this package writes and reads. */
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
