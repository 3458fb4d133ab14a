/**
 * The versioned DDL. A step's text is frozen once released: later versions append steps and
 * never edit one. Record columns must match `columns.ts` (a test compares them with
 * `PRAGMA table_info`). Text columns compare with SQLite's default `BINARY` collation: UTF-8
 * bytes, which is code-point order, as core's `compareIds`.
 */

/** One numbered schema step. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The table that records which steps ran. */
export const MIGRATIONS_TABLE = "message_store_migrations";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "conversations, messages, turn traces, checkpoints",
    sql: `
CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  tenant_id TEXT,
  title TEXT,
  updated_at INTEGER NOT NULL,
  deleted_at INTEGER,
  -- The newest message timestamp ever stored here; only moves forward.
  last_message_at INTEGER,
  last_activity_at INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX conversations_user_activity ON conversations (user_id, last_activity_at DESC, id);
CREATE INDEX conversations_tenant ON conversations (tenant_id, id) WHERE tenant_id IS NOT NULL;
CREATE INDEX conversations_deleted ON conversations (deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL REFERENCES conversations (id),
  -- Receipt order: breaks timestamp ties; an upsert keeps it.
  sequence INTEGER NOT NULL,
  timestamp INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  tenant_id TEXT,
  role TEXT NOT NULL,
  is_flagged INTEGER NOT NULL,
  deleted_at INTEGER,
  embedding_length INTEGER,
  original_content TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX messages_transcript ON messages (conversation_id, timestamp, sequence);
CREATE UNIQUE INDEX messages_sequence ON messages (sequence);
CREATE INDEX messages_pending ON messages (id)
  WHERE embedding_length IS NULL AND deleted_at IS NULL;
CREATE INDEX messages_deleted ON messages (deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE turn_traces (
  id TEXT PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE REFERENCES messages (id),
  conversation_id TEXT NOT NULL REFERENCES conversations (id),
  agent_id TEXT NOT NULL,
  user_id TEXT,
  tenant_id TEXT,
  timestamp INTEGER NOT NULL,
  deleted_at INTEGER,
  record TEXT NOT NULL
);
CREATE INDEX turn_traces_time ON turn_traces (timestamp DESC, id DESC);
CREATE INDEX turn_traces_conversation ON turn_traces (conversation_id);
CREATE INDEX turn_traces_deleted ON turn_traces (deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE checkpoints (
  conversation_id TEXT NOT NULL REFERENCES conversations (id),
  namespace TEXT NOT NULL,
  id TEXT NOT NULL,
  parent_id TEXT,
  checkpoint_type TEXT NOT NULL,
  checkpoint_data BLOB NOT NULL,
  channel_versions TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (conversation_id, namespace, id)
) WITHOUT ROWID;

CREATE TABLE checkpoint_values (
  conversation_id TEXT NOT NULL REFERENCES conversations (id),
  namespace TEXT NOT NULL,
  channel TEXT NOT NULL,
  version TEXT NOT NULL,
  value_type TEXT NOT NULL,
  value_data BLOB NOT NULL,
  PRIMARY KEY (conversation_id, namespace, channel, version)
) WITHOUT ROWID;

CREATE TABLE checkpoint_writes (
  conversation_id TEXT NOT NULL REFERENCES conversations (id),
  namespace TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  task_path TEXT NOT NULL,
  channel TEXT NOT NULL,
  value_type TEXT NOT NULL,
  value_data BLOB NOT NULL,
  PRIMARY KEY (conversation_id, namespace, checkpoint_id, task_id, idx)
) WITHOUT ROWID;
`,
  },
];

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
