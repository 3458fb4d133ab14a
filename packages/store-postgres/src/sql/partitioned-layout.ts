import {
  CONVERSATION_COLUMNS,
  type Column,
  MESSAGE_COLUMNS,
  STORE_COLUMNS,
  TURN_TRACE_COLUMNS,
} from "./columns.js";
import { MIGRATIONS, type Migration } from "./migrations.js";
import { quoteIdent, quoteLiteral } from "./quote.js";

/**
 * The partitioned layout: `conversations` hash-partitioned by `id`, `messages` and `turn_traces`
 * by `conversation_id`, into the same number of partitions, so that everything of one
 * conversation lives in partitions with the same remainder. PostgreSQL (like Citus) requires every
 * primary key and unique constraint of a partitioned table to include the partition key, so:
 *
 * - `messages` is keyed by `(id, conversation_id)`: `id` first, so a lookup by id alone is one
 *   probe of each partition's primary key;
 * - `turn_traces` by `(id, conversation_id)`, its one trace per message by
 *   `UNIQUE (message_id, conversation_id)`, and its foreign key is
 *   `(message_id, conversation_id) → messages (id, conversation_id) ON DELETE CASCADE`.
 *
 * The global uniqueness of message and trace ids, which no constraint of these tables can hold
 * across partitions, is kept by the id lookups of migration 6 (`id-lookups.ts`).
 *
 * Only version 1 of the migrations differs: a partitioned schema is created by this version-1
 * step, derived from the column tables (`columns.ts`) with the indexes of the released step 1,
 * and every later step (`ALTER TABLE … ADD COLUMN`, `CREATE INDEX`) applies to both layouts,
 * since PostgreSQL propagates them from a partitioned table to its partitions.
 */

/** Most partitions a layout may have (the config's bound). */
export const MAX_PARTITIONS = 1024;

/** A column's definition in `CREATE TABLE`, from the column table. */
function definition(c: Column, s: string): string {
  let sql = `${quoteIdent(c.name)} ${c.type}`;
  if (c.collation) sql += ` COLLATE "${c.collation}"`;
  if (!c.nullable) sql += " NOT NULL";
  if (c.default !== undefined) sql += ` DEFAULT ${c.default}`;
  if (c.empty !== undefined) sql += ` DEFAULT '${c.empty}'::jsonb`;
  if (c.sequence) sql += ` DEFAULT nextval(${quoteLiteral(`${s}.${c.sequence}`)})`;
  if (c.generated) sql += ` GENERATED ALWAYS AS (${c.generated}) STORED`;
  return sql;
}

/** The version-1 columns of a table: the model's and the store's, without later steps'. */
function columnsOf(model: Record<string, Column>, store: readonly Column[], s: string): string[] {
  return [...Object.values(model), ...store]
    .filter((c) => c.since === undefined)
    .map((c) => definition(c, s));
}

/** A partitioned table and its `partitions` hash partitions (`<table>_p00` …). */
export function partitionedTable(
  s: string,
  table: string,
  key: string,
  body: readonly string[],
  partitions: number,
): string {
  const width = String(partitions - 1).length;
  const parts = Array.from({ length: partitions }, (_, i) => {
    const name = quoteIdent(`${table}_p${String(i).padStart(width, "0")}`);
    return `CREATE TABLE ${s}.${name} PARTITION OF ${s}.${table}
  FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${i});`;
  });
  return [
    `CREATE TABLE ${s}.${table} (\n  ${body.join(",\n  ")}\n) PARTITION BY HASH (${key});`,
    ...parts,
  ].join("\n");
}

/**
 * The `CREATE INDEX` statements of the released step 1, as they are: PostgreSQL creates an index
 * on a partitioned table on each partition, so both layouts get the same indexes by name.
 */
function versionOneIndexes(s: string): string[] {
  return MIGRATIONS[0]!
    .sql(s)
    .split(/;\s*\n/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.startsWith("CREATE INDEX"))
    .map((statement) => `${statement};`);
}

/** The tables, sequence and version-1 indexes of the partitioned layout, for a schema. */
export function partitionedTables(s: string, partitions: number): string {
  const messagesSeq = `${s}.${STORE_COLUMNS.messages[0]!.sequence}`;
  const conversations = [
    ...columnsOf(CONVERSATION_COLUMNS, STORE_COLUMNS.conversations, s),
    "CONSTRAINT conversations_pkey PRIMARY KEY (id)",
  ];
  const messages = [
    ...columnsOf(MESSAGE_COLUMNS, STORE_COLUMNS.messages, s),
    "CONSTRAINT messages_pkey PRIMARY KEY (id, conversation_id)",
    `CONSTRAINT messages_conversation_id_fkey FOREIGN KEY (conversation_id)
    REFERENCES ${s}.conversations (id) ON DELETE CASCADE`,
  ];
  const traces = [
    ...columnsOf(TURN_TRACE_COLUMNS, STORE_COLUMNS.turn_traces, s),
    "CONSTRAINT turn_traces_pkey PRIMARY KEY (id, conversation_id)",
    "CONSTRAINT turn_traces_message_id_key UNIQUE (message_id, conversation_id)",
    `CONSTRAINT turn_traces_message_id_fkey FOREIGN KEY (message_id, conversation_id)
    REFERENCES ${s}.messages (id, conversation_id) ON DELETE CASCADE`,
  ];
  return [
    partitionedTable(s, "conversations", "id", conversations, partitions),
    `CREATE SEQUENCE ${messagesSeq} AS bigint;`,
    partitionedTable(s, "messages", "conversation_id", messages, partitions),
    `ALTER SEQUENCE ${messagesSeq} OWNED BY ${s}.messages.seq;`,
    partitionedTable(s, "turn_traces", "conversation_id", traces, partitions),
    ...versionOneIndexes(s),
  ].join("\n");
}

/** The version-1 step of a partitioned schema: {@link partitionedTables} under step 1's number. */
export function partitionedVersionOne(partitions: number): Migration {
  const { version, name } = MIGRATIONS[0]!;
  return { version, name, sql: (s) => partitionedTables(s, partitions) };
}
