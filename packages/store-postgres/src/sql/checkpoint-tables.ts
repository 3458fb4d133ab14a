import type { Partitions } from "../partitions.js";
import { quoteIdent } from "./quote.js";

/**
 * Migration step 5: the tables of the `checkpoints` capability (LangGraph's checkpoints, channel
 * values and pending writes), keyed by their conversation first. In the partitioned layout each
 * is hash-partitioned by `conversation_id` into as many partitions as `conversations`, so a
 * thread's rows live in the partitions of its conversation's remainder; in both layouts the
 * foreign key deletes them with their conversation (delete, purge, erasure).
 */

const TABLES: Record<string, { columns: string[]; key: string }> = {
  checkpoints: {
    columns: [
      'parent_id text COLLATE "C"',
      "type text NOT NULL",
      "checkpoint bytea NOT NULL",
      "channel_versions jsonb NOT NULL",
      "metadata jsonb NOT NULL",
    ],
    key: "id",
  },
  checkpoint_values: {
    columns: ["type text NOT NULL", "value bytea NOT NULL"],
    key: "channel, version",
  },
  checkpoint_writes: {
    columns: [
      'task_path text COLLATE "C" NOT NULL',
      'channel text COLLATE "C" NOT NULL',
      "type text NOT NULL",
      "value bytea NOT NULL",
    ],
    key: "checkpoint_id, task_id, idx",
  },
};

/** The key columns of each table besides `conversation_id` and `namespace`. */
const KEY_COLUMNS: Record<string, string[]> = {
  checkpoints: ['id text COLLATE "C" NOT NULL'],
  checkpoint_values: ['channel text COLLATE "C" NOT NULL', 'version text COLLATE "C" NOT NULL'],
  checkpoint_writes: [
    'checkpoint_id text COLLATE "C" NOT NULL',
    'task_id text COLLATE "C" NOT NULL',
    "idx integer NOT NULL",
  ],
};

function createTable(s: string, table: string, partitions: Partitions): string {
  const { columns, key } = TABLES[table]!;
  const body = [
    'conversation_id text COLLATE "C" NOT NULL',
    'namespace text COLLATE "C" NOT NULL',
    ...KEY_COLUMNS[table]!,
    ...columns,
    `CONSTRAINT ${table}_pkey PRIMARY KEY (conversation_id, namespace, ${key})`,
    `CONSTRAINT ${table}_conversation_id_fkey FOREIGN KEY (conversation_id)
    REFERENCES ${s}.conversations (id) ON DELETE CASCADE`,
  ];
  const create = `CREATE TABLE IF NOT EXISTS ${s}.${table} (\n  ${body.join(",\n  ")}\n)`;
  if (partitions === null) return `${create};`;
  const width = String(partitions - 1).length;
  const parts = Array.from({ length: partitions }, (_, i) => {
    const name = quoteIdent(`${table}_p${String(i).padStart(width, "0")}`);
    return `CREATE TABLE IF NOT EXISTS ${s}.${name} PARTITION OF ${s}.${table}
  FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${i});`;
  });
  return [`${create} PARTITION BY HASH (conversation_id);`, ...parts].join("\n");
}

/** Step 5's DDL for a schema of a layout (the default one's text is frozen once released). */
export function checkpointTablesSql(s: string, partitions: Partitions): string {
  return Object.keys(TABLES)
    .map((table) => createTable(s, table, partitions))
    .join("\n");
}
