import { ConfigurationError, NotFoundError } from "@message-store/core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrate, PostgresConfigSchema } from "../src/index.js";
import { applySchema, packagePlan } from "../src/migrate.js";
import { functionsChecksum } from "../src/sql/functions.js";
import { LATEST_VERSION, MIGRATIONS } from "../src/sql/migrations.js";
import { conversation, freshDatabases, message, openStore, trace, withClient } from "./helpers.js";

/**
 * The partitioned layout's DDL (`partitioned-layout.ts`), how a store finds or refuses a layout,
 * and the migrations table of a partitioned schema.
 */

const freshDatabase = freshDatabases("ms_pg_partitioned");

/** Every column of the three tables as the catalog describes it, to compare two layouts. */
async function columns(url: string, schema: string): Promise<unknown[]> {
  const { rows } = await withClient(url, (c) =>
    c.query(
      `SELECT r.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
              co.collname AS collation, a.attnotnull AS not_null, a.attgenerated AS generated,
              regexp_replace(pg_get_expr(d.adbin, d.adrelid), '"?${schema}"?\\.', '', 'g') AS expr
         FROM pg_attribute a
         JOIN pg_class r ON r.oid = a.attrelid
         LEFT JOIN pg_collation co ON co.oid = a.attcollation AND co.collname <> 'default'
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE r.relnamespace = $1::regnamespace
          AND r.relname IN ('conversations', 'messages', 'turn_traces')
          AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY 1, 2`,
      [schema],
    ),
  );
  return rows;
}

/** Index names of the three parent tables, with their definitions' column lists. */
async function indexes(url: string, schema: string): Promise<Record<string, string>> {
  const { rows } = await withClient(url, (c) =>
    c.query(
      `SELECT i.relname AS name, regexp_replace(pg_get_indexdef(i.oid), '^.* USING ', '') AS def
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE t.relnamespace = $1::regnamespace
          AND t.relname IN ('conversations', 'messages', 'turn_traces')`,
      [schema],
    ),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.def]));
}

/** The keys of the three parent tables, as `pg_get_constraintdef` prints them. */
async function constraints(url: string, schema: string): Promise<Record<string, string>> {
  const { rows } = await withClient(url, (c) =>
    c.query(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE connamespace = $1::regnamespace AND contype IN ('p', 'u', 'f') AND conparentid = 0
          AND conrelid IN (
          SELECT oid FROM pg_class WHERE relname IN ('conversations', 'messages', 'turn_traces')
             AND relnamespace = $1::regnamespace)`,
      [schema],
    ),
  );
  return Object.fromEntries(rows.map((r) => [r.conname, r.def.replaceAll(`${schema}.`, "")]));
}

describe("the partitioned layout", () => {
  it("has the default layout's columns, defaults, generated columns and index names", async () => {
    const url = await freshDatabase();
    await (await openStore(url, { schema: "plain" })).close();
    const store = await openStore(url, { schema: "parted", partitions: 4 });
    expect(store.driver.partitions).toBe(4);
    await store.close();
    expect(await columns(url, "parted")).toEqual(await columns(url, "plain"));
    expect((await columns(url, "parted")).length).toBeGreaterThan(50);
    const parted = await indexes(url, "parted");
    const plain = await indexes(url, "plain");
    expect(Object.keys(parted).sort()).toEqual(Object.keys(plain).sort());
    for (const [name, def] of Object.entries(plain)) {
      // Keys include the partition key; every other index is the same.
      if (/_pkey$|_key$/.test(name)) continue;
      expect(parted[name], name).toBe(def);
    }
    expect(await constraints(url, "parted")).toEqual({
      conversations_pkey: "PRIMARY KEY (id)",
      messages_pkey: "PRIMARY KEY (id, conversation_id)",
      messages_conversation_id_fkey:
        "FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE",
      turn_traces_pkey: "PRIMARY KEY (id, conversation_id)",
      turn_traces_message_id_key: "UNIQUE (message_id, conversation_id)",
      turn_traces_message_id_fkey:
        "FOREIGN KEY (message_id, conversation_id) REFERENCES messages(id, conversation_id) ON DELETE CASCADE",
    });
    const { rows } = await withClient(url, (c) =>
      c.query(
        `SELECT t.relname AS parent, pg_get_partkeydef(t.oid) AS key, count(i.inhrelid)::int AS n,
                min(p.relname) AS first
           FROM pg_class t JOIN pg_inherits i ON i.inhparent = t.oid JOIN pg_class p ON p.oid = i.inhrelid
          WHERE t.relnamespace = 'parted'::regnamespace AND t.relkind = 'p'
          GROUP BY t.oid, t.relname ORDER BY 1`,
      ),
    );
    expect(rows.map((r) => [r.parent, r.key, r.n, r.first])).toEqual([
      ["checkpoint_values", "HASH (conversation_id)", 4, "checkpoint_values_p0"],
      ["checkpoint_writes", "HASH (conversation_id)", 4, "checkpoint_writes_p0"],
      ["checkpoints", "HASH (conversation_id)", 4, "checkpoints_p0"],
      ["conversations", "HASH (id)", 4, "conversations_p0"],
      ["message_ids", "HASH (id)", 4, "message_ids_p0"],
      ["messages", "HASH (conversation_id)", 4, "messages_p0"],
      ["trace_ids", "HASH (id)", 4, "trace_ids_p0"],
      ["turn_traces", "HASH (conversation_id)", 4, "turn_traces_p0"],
    ]);
  });

  it("migration 6 fills the id lookups of an existing partitioned store, and reads go through them", async () => {
    const url = await freshDatabase();
    const pool = new pg.Pool({ connectionString: url });
    // A store of version 5 (before the lookups), with rows.
    const before = (partitions: number | null) => {
      const plan = packagePlan(partitions);
      return { ...plan, migrations: plan.migrations.filter((m) => m.version <= 5) };
    };
    expect(await applySchema(pool, "old", before, { partitions: 4 })).toBe(4);
    await withClient(url, (c) =>
      c.query(`INSERT INTO old.conversations (id, user_id, created_at, updated_at)
                 VALUES ('c1', 'u1', 1, 1), ('c2', 'u1', 1, 1);
               INSERT INTO old.messages (id, conversation_id, user_id, role, original_content, "timestamp")
                 VALUES ('m1', 'c1', 'u1', 'user', 'a', 1), ('m2', 'c2', 'u1', 'user', 'b', 2);
               INSERT INTO old.turn_traces (id, message_id, conversation_id, agent_id, "timestamp",
                   total_tokens, total_latency_ms) VALUES ('t1', 'm1', 'c1', 'a', 1, 1, 1);`),
    );
    expect(await migrate(pool, "old")).toBe(4);
    await pool.end();
    const lookups = await withClient(url, (c) =>
      c.query(`SELECT 'm' AS kind, id, conversation_id FROM old.message_ids
               UNION ALL SELECT 't', id, conversation_id FROM old.trace_ids ORDER BY 1, 2`),
    );
    expect(lookups.rows.map((r) => [r.kind, r.id, r.conversation_id])).toEqual([
      ["m", "m1", "c1"],
      ["m", "m2", "c2"],
      ["t", "t1", "c1"],
    ]);
    const store = await openStore(url, { schema: "old" });
    expect((await store.getMessage("m2"))?.conversationId).toBe("c2");
    expect((await store.getTurnTraceByMessageId("m1"))?.id).toBe("t1");
    await expect(store.storeMessage(message("m1", "c2", 3))).rejects.toMatchObject({
      code: "INTEGRITY",
    });
    await store.close();
  });

  it("names partitions with zero padding and records every version with the layout's checksum", async () => {
    const url = await freshDatabase();
    const pool = new pg.Pool({ connectionString: url });
    expect(await migrate(pool, "wide", { partitions: 12 })).toBe(12);
    expect(await migrate(pool, "wide")).toBe(12);
    await pool.end();
    const { rows } = await withClient(url, (c) =>
      c.query(`SELECT relname FROM pg_class WHERE relnamespace = 'wide'::regnamespace
                 AND relname LIKE 'messages_p%' AND relkind = 'r' ORDER BY 1`),
    );
    expect(rows.map((r) => r.relname)).toEqual(
      Array.from({ length: 12 }, (_, i) => `messages_p${String(i).padStart(2, "0")}`),
    );
    const recorded = await withClient(url, (c) =>
      c.query("SELECT version, functions_checksum FROM wide.message_store_migrations ORDER BY 1"),
    );
    expect(recorded.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(recorded.rows.at(-1)!.functions_checksum).toBe(functionsChecksum(true));
    expect(functionsChecksum(true)).not.toBe(functionsChecksum(false));
    expect(LATEST_VERSION).toBe(recorded.rows.at(-1)!.version);
  });

  it("an existing schema keeps its layout: a different partitions is a ConfigurationError", async () => {
    const url = await freshDatabase();
    await (await openStore(url, { schema: "four", partitions: 4 })).close();
    await (await openStore(url, { schema: "plain" })).close();
    const refusals = [
      [
        { schema: "four", partitions: 8 },
        /has the partitioned layout with 4 partitions, but the config asks for partitions: 8/,
      ],
      [
        { schema: "plain", partitions: 4 },
        /has the default \(unpartitioned\) layout, but the config asks for partitions: 4/,
      ],
    ] as const;
    for (const [config, reason] of refusals) {
      const error = await openStore(url, config).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/^\[message-store\] \[postgres\] schema "/);
      expect((error as Error).message).toMatch(reason);
      expect((error as Error).message).toContain("message-store migrate");
    }
    // Without the key, a store works with the layout it finds, also read-only.
    for (const [schema, partitions] of [
      ["four", 4],
      ["plain", null],
    ] as const) {
      const store = await openStore(url, { schema, create: false });
      expect(store.driver.partitions).toBe(partitions);
      await store.storeConversation(conversation("c1"));
      await store.storeMessage(message("m1", "c1", 1));
      expect(await store.getMessage("m1")).not.toBeNull();
      await store.close();
    }
    await expect(openStore(url, { schema: "none", partitions: 4, create: false })).rejects.toThrow(
      NotFoundError,
    );
  });

  it("processes creating one schema at once with different layouts: one layout wins, the other is refused", async () => {
    const url = await freshDatabase();
    const settled = await Promise.allSettled([
      openStore(url, { partitions: 4 }),
      openStore(url, { partitions: 2 }),
      openStore(url, { partitions: 4 }),
      openStore(url, { partitions: 2 }),
    ]);
    const opened = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const refused = settled.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
    expect(opened).toHaveLength(2);
    expect(refused).toHaveLength(2);
    expect(opened[0]!.driver.partitions).toBe(opened[1]!.driver.partitions);
    for (const error of refused) expect(error).toBeInstanceOf(ConfigurationError);
    await Promise.all(opened.map((s) => s.close()));
  });

  it("refuses partitions outside 1–1024 or not an integer, before any I/O", () => {
    for (const partitions of [0, -1, 1025, 2.5]) {
      expect(
        PostgresConfigSchema.safeParse({ dsn: "postgres://h/db", partitions }).success,
        String(partitions),
      ).toBe(false);
    }
    expect(PostgresConfigSchema.parse({ dsn: "postgres://h/db", partitions: 16 }).partitions).toBe(
      16,
    );
    expect(PostgresConfigSchema.parse({ dsn: "postgres://h/db" }).partitions).toBeUndefined();
  });

  // With a replica too: test/replica.test.ts, on a real standby (a replica_dsn naming the primary
  // itself is refused at open, since it is not in recovery).
  it("works without prepared statements (transaction_pooler), on one partition", async () => {
    const url = await freshDatabase();
    const store = await openStore(url, { partitions: 1, transaction_pooler: true });
    await store.storeConversation(conversation("c1"));
    await store.storeMessages([message("m1", "c1", 1), message("m2", "c1", 2)]);
    await store.storeTurnTrace(trace("t1", "m2", "c1"));
    expect((await store.getImmediateContext("c1", 5)).map((m) => m.id)).toEqual(["m1", "m2"]);
    expect((await store.listConversations()).items.map((c) => c.id)).toEqual(["c1"]);
    expect((await store.queryTurnTraces({ conversationId: "c1" })).items).toHaveLength(1);
    expect(await store.deleteMessage("m2")).toBe(true);
    expect(await store.getTurnTraceByMessageId("m2")).toBeNull();
    await store.close();
  });
});
