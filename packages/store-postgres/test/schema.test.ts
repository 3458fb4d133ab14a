import { describe, expect, it } from "vitest";
import {
  CONVERSATION_COLUMNS,
  type Column,
  MESSAGE_COLUMNS,
  STORE_COLUMNS,
  TURN_TRACE_COLUMNS,
} from "../src/sql/columns.js";
import { MIGRATIONS } from "../src/sql/migrations.js";
import { conversation, freshDatabases, openStore, withClient } from "./helpers.js";

const freshDatabase = freshDatabases("ms_pg_schema");

async function indexes(url: string, schema = "public"): Promise<Record<string, string>> {
  const { rows } = await withClient(url, (c) =>
    c.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1", [schema]),
  );
  return Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
}

/** A column as the catalog describes it, in the terms of `columns.ts`. */
interface CatalogColumn {
  name: string;
  type: string;
  collation: string | null;
  nullable: boolean;
}

async function catalogColumns(url: string, table: string): Promise<CatalogColumn[]> {
  const { rows } = await withClient(url, (c) =>
    c.query(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
              CASE WHEN a.attcollation <> t.typcollation THEN co.collname END AS collation,
              NOT a.attnotnull AS nullable
         FROM pg_attribute a
         JOIN pg_type t ON t.oid = a.atttypid
         LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attname`,
      [`public.${table}`],
    ),
  );
  return rows;
}

function expected(columns: readonly Column[]): CatalogColumn[] {
  return columns
    .map((c) => ({
      name: c.name,
      type: c.type,
      collation: c.collation ?? null,
      nullable: c.nullable,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Whether contrib's cube can be created here (migration 4 adds `embedding_cubes` then). */
async function hasCube(url: string): Promise<boolean> {
  const { rows } = await withClient(url, (c) =>
    c.query("SELECT 1 FROM pg_available_extensions WHERE name = 'cube'"),
  );
  return rows.length > 0;
}

/** Migration 4's column, where cube exists (see `hasCube`). */
const CUBE_COLUMN: CatalogColumn = {
  name: "embedding_cubes",
  type: "cube[]",
  collation: null,
  nullable: true,
};

describe("schema", () => {
  it("matches the column tables exactly: names, types, collations, nullability", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    const cube = await hasCube(url);
    const tables: [string, Record<string, Column>, readonly Column[]][] = [
      ["conversations", CONVERSATION_COLUMNS, STORE_COLUMNS.conversations],
      ["messages", MESSAGE_COLUMNS, STORE_COLUMNS.messages],
      ["turn_traces", TURN_TRACE_COLUMNS, STORE_COLUMNS.turn_traces],
    ];
    for (const [table, model, store] of tables) {
      const want = expected([...Object.values(model), ...store]);
      expect(want.length).toBeGreaterThan(8);
      if (table === "messages" && cube) {
        want.push(CUBE_COLUMN);
        want.sort((a, b) => (a.name < b.name ? -1 : 1));
      }
      expect(await catalogColumns(url, table)).toEqual(want);
    }
  });

  it("creates the constraints, the generated column and the named indexes", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    const idx = await indexes(url);
    expect(idx.idx_msg_conv).toMatch(/btree \(conversation_id, "timestamp", seq\)/);
    expect(idx.idx_tt_agent_time).toMatch(/btree \(agent_id, "timestamp" DESC, id DESC\)/);
    expect(idx.idx_tt_time).toMatch(/btree \("timestamp" DESC, id DESC\)/);
    expect(idx.idx_tt_conv).toMatch(/btree \(conversation_id, "timestamp" DESC, id DESC\)/);
    expect(idx.idx_tt_tool_gin).toMatch(/gin \(tool_traces jsonb_path_ops\)/);
    expect(idx.idx_tt_llm_gin).toMatch(/gin \(llm_calls jsonb_path_ops\)/);
    expect(idx.idx_tt_errors_gin).toMatch(/gin \(errors jsonb_path_ops\)/);
    expect(idx.idx_msg_flagged).toMatch(/WHERE is_flagged/);
    expect(idx.idx_conv_user_activity).toMatch(/\(user_id, last_activity_at DESC, id\)/);
    expect(idx.turn_traces_message_id_key).toMatch(/UNIQUE INDEX .* \(message_id\)/);
    expect(idx.idx_msg_user).toMatch(/\(user_id, conversation_id\)/);
    expect(idx.idx_msg_tenant).toMatch(/\(tenant_id, user_id\) WHERE \(tenant_id IS NOT NULL\)/);
    expect(idx.idx_msg_pending).toMatch(
      /\(id\) WHERE \(\(embedding IS NULL\) AND \(deleted_at IS NULL\)\)/,
    );
    expect(idx.idx_conv_tenant).toMatch(/\(tenant_id, id\) WHERE \(tenant_id IS NOT NULL\)/);
    expect(idx.idx_tt_user).toMatch(/\(user_id, "timestamp" DESC, id DESC\)/);
    expect(Object.keys(idx).sort()).toEqual([
      "checkpoint_values_pkey",
      "checkpoint_writes_pkey",
      "checkpoints_pkey",
      "conversations_pkey",
      "idx_conv_deleted",
      "idx_conv_tenant",
      "idx_conv_user_activity",
      "idx_msg_conv",
      "idx_msg_deleted",
      "idx_msg_flagged",
      "idx_msg_pending",
      "idx_msg_tenant",
      "idx_msg_user",
      "idx_tt_agent_time",
      "idx_tt_conv",
      "idx_tt_deleted",
      "idx_tt_errors_gin",
      "idx_tt_llm_gin",
      "idx_tt_tenant",
      "idx_tt_time",
      "idx_tt_tool_gin",
      "idx_tt_user",
      "message_store_migrations_pkey",
      "messages_pkey",
      "turn_traces_message_id_key",
      "turn_traces_pkey",
    ]);
    const generated = await withClient(url, (c) =>
      c.query(
        `SELECT column_name, generation_expression FROM information_schema.columns
          WHERE table_schema = 'public' AND is_generated = 'ALWAYS' ORDER BY column_name`,
      ),
    );
    const cubes = {
      column_name: "embedding_cubes",
      generation_expression: expect.stringMatching(/ms_cube_chunks\(embedding\)/),
    };
    expect(generated.rows).toEqual([
      ...((await hasCube(url)) ? [cubes] : []),
      { column_name: "embedding_dims", generation_expression: "cardinality(embedding)" },
      {
        column_name: "embedding_norm",
        generation_expression: expect.stringMatching(/ms_squared_norm\(embedding\)/),
      },
      {
        column_name: "last_activity_at",
        generation_expression: expect.stringMatching(/GREATEST\(updated_at, COALESCE/),
      },
    ]);
    const sequence = await withClient(url, (c) =>
      c.query(
        `SELECT pg_get_serial_sequence('public.messages', 'seq') AS owned,
                column_default FROM information_schema.columns
          WHERE table_name = 'messages' AND column_name = 'seq'`,
      ),
    );
    expect(sequence.rows[0]).toEqual({
      owned: "public.messages_seq",
      column_default: "nextval('messages_seq'::regclass)",
    });
    const fks = await withClient(url, (c) =>
      c.query(
        `SELECT conname, confdeltype FROM pg_constraint WHERE contype = 'f' ORDER BY conname`,
      ),
    );
    expect(fks.rows).toEqual([
      // The checkpoint tables go with their conversation (delete, purge, erasure).
      { conname: "checkpoint_values_conversation_id_fkey", confdeltype: "c" },
      { conname: "checkpoint_writes_conversation_id_fkey", confdeltype: "c" },
      { conname: "checkpoints_conversation_id_fkey", confdeltype: "c" },
      { conname: "messages_conversation_id_fkey", confdeltype: "c" },
      { conname: "turn_traces_message_id_fkey", confdeltype: "c" },
    ]);
  });

  it("keeps several stores apart in one database with the schema option", async () => {
    const url = await freshDatabase();
    const a = await openStore(url, { schema: "tenant_a" });
    const b = await openStore(url, { schema: "Tenant_B" });
    await a.storeConversation(conversation("c1"));
    expect(await b.getConversation("c1")).toBeNull();
    await b.storeConversation(conversation("c1", "someone-else"));
    expect((await a.getConversation("c1"))!.userId).toBe("u1");
    await Promise.all([a.close(), b.close()]);
    expect(Object.keys(await indexes(url, "Tenant_B"))).toContain("idx_msg_conv");
    const versions = await withClient(url, (c) =>
      c.query(`SELECT version FROM "Tenant_B".message_store_migrations ORDER BY version`),
    );
    expect(versions.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const publicTables = await withClient(url, (c) =>
      c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"),
    );
    expect(publicTables.rows[0].n).toBe(0);
  });
});
