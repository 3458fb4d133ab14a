import { ConfigurationError } from "@message-store/core";
import { createTestDatabase, dropTestDatabase } from "@message-store/test-servers";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { LATEST_VERSION, MIGRATIONS, migrate } from "../src/index.js";
import { conversation, message, openStore, trace, withClient } from "./helpers.js";

const created: string[] = [];
async function freshDatabase(): Promise<string> {
  const url = await createTestDatabase(inject("postgresUrl"), "ms_pg_schema");
  created.push(url);
  return url;
}
afterEach(async () => {
  await Promise.all(created.splice(0).map(dropTestDatabase));
});

async function indexes(url: string, schema = "public"): Promise<Record<string, string>> {
  const { rows } = await withClient(url, (c) =>
    c.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1", [schema]),
  );
  return Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
}

async function versions(url: string, schema = "public"): Promise<number[]> {
  const { rows } = await withClient(url, (c) =>
    c.query(`SELECT version FROM "${schema}".message_store_migrations ORDER BY version`),
  );
  return rows.map((r) => r.version);
}

describe("schema", () => {
  it("creates the tables, snake_case columns, constraints and named indexes", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    const idx = await indexes(url);
    expect(idx.idx_msg_conv).toMatch(/btree \(conversation_id, "timestamp", seq\)/);
    expect(idx.idx_tt_agent_time).toMatch(/btree \(agent_id, "timestamp" DESC, id DESC\)/);
    expect(idx.idx_tt_tool_gin).toMatch(/gin \(tool_traces jsonb_path_ops\)/);
    expect(idx.idx_tt_llm_gin).toMatch(/gin \(llm_calls jsonb_path_ops\)/);
    expect(idx.idx_tt_errors_gin).toMatch(/gin \(errors jsonb_path_ops\)/);
    expect(idx.idx_msg_flagged).toMatch(/WHERE is_flagged/);
    expect(idx.idx_conv_user_activity).toMatch(/\(user_id, last_activity_at DESC, id\)/);
    expect(idx.turn_traces_message_id_key).toMatch(/UNIQUE INDEX .* \(message_id\)/);
    const columns = await withClient(url, (c) =>
      c.query(
        `SELECT table_name, column_name, data_type, collation_name, is_generated
           FROM information_schema.columns WHERE table_schema = 'public'`,
      ),
    );
    const col = (t: string, n: string) =>
      columns.rows.find((r) => r.table_name === t && r.column_name === n);
    expect(col("conversations", "id")).toMatchObject({ data_type: "text", collation_name: "C" });
    expect(col("conversations", "last_activity_at")).toMatchObject({ is_generated: "ALWAYS" });
    expect(col("messages", "embedding")).toMatchObject({ data_type: "ARRAY" });
    expect(col("messages", "tool_calls")).toMatchObject({ data_type: "jsonb" });
    expect(col("turn_traces", "tool_traces")).toMatchObject({ data_type: "jsonb" });
    for (const r of columns.rows) expect(r.column_name).toMatch(/^[a-z_]+$/);
    const fks = await withClient(url, (c) =>
      c.query(
        `SELECT conname, confdeltype FROM pg_constraint WHERE contype = 'f' ORDER BY conname`,
      ),
    );
    expect(fks.rows).toEqual([
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
    expect(await versions(url, "tenant_a")).toEqual(MIGRATIONS.map((m) => m.version));
    const publicTables = await withClient(url, (c) =>
      c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"),
    );
    expect(publicTables.rows[0].n).toBe(0);
  });
});

describe("migrations", () => {
  it("are numbered 1..n without gaps", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(
      Array.from({ length: LATEST_VERSION }, (_, i) => i + 1),
    );
  });

  it("are idempotent: every step can run twice", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    await withClient(url, async (c) => {
      for (const m of MIGRATIONS) await c.query(m.sql('"public"'));
    });
    const store = await openStore(url);
    await store.storeConversation(conversation("c1"));
    await store.storeMessages([message("m1", "c1", 1), message("m2", "c1", 1)]);
    const ids = (await store.getMessagesByConversationId("c1")).items.map((m) => m.id);
    expect(ids).toEqual(["m1", "m2"]);
    await store.close();
    expect(await versions(url)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it("upgrade a version-1 database with data in it", async () => {
    const url = await freshDatabase();
    const pool = new pg.Pool({ connectionString: url });
    await migrate(pool, "public", { targetVersion: 1 });
    await pool.end();
    expect(await versions(url)).toEqual([1]);
    await withClient(url, async (c) => {
      await c.query(`INSERT INTO conversations (id, user_id, created_at, updated_at, metadata)
        VALUES ('c1', 'u1', 100, 200, '{"$v1": true}'), ('c2', 'u1', 100, 300, '{}')`);
      await c.query(`INSERT INTO messages (id, conversation_id, user_id, role, original_content, "timestamp")
        VALUES ('m-b', 'c1', 'u1', 'user', 'second', 1000), ('m-a', 'c1', 'u1', 'assistant', 'first', 1000),
               ('m-0', 'c1', 'u1', 'user', 'zeroth', 500)`);
      await c.query(`INSERT INTO turn_traces (id, message_id, conversation_id, agent_id, "timestamp",
          total_tokens, total_latency_ms, tool_traces)
        VALUES ('t1', 'm-a', 'c1', 'agent', 1000, 42, 1.5, '[{"toolName": "web"}]')`);
    });
    const store = await openStore(url);
    expect(await versions(url)).toEqual(MIGRATIONS.map((m) => m.version));
    const c1 = await store.getConversation("c1");
    expect(c1).toMatchObject({ metadata: { $v1: true }, updatedAt: 200, lastActivityAt: 1000 });
    const page = await store.getMessagesByConversationId("c1");
    expect(page.items.map((m) => m.id)).toEqual(["m-0", "m-a", "m-b"]);
    expect(page.items[1]).toMatchObject({ embedding: null, entities: [], isFlagged: false });
    const t = await store.getTurnTraceByMessageId("m-a");
    expect(t).toMatchObject({ id: "t1", totalTokens: 42, toolTraces: [{ toolName: "web" }] });
    await store.storeMessage(message("m-new", "c1", 1000));
    const after = await store.getMessagesByConversationId("c1");
    expect(after.items.map((m) => m.id)).toEqual(["m-0", "m-a", "m-b", "m-new"]);
    await store.storeTurnTrace(trace("t2", "m-new", "c1"));
    expect(
      (await store.getConversationsByUserId("u1")).items.map((c) => [c.id, c.lastActivityAt]),
    ).toEqual([
      ["c1", 1000],
      ["c2", 300],
    ]);
    await store.close();
  });

  it("run once when two processes open a fresh database at the same time", async () => {
    const url = await freshDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(url)));
    await stores[0]!.storeConversation(conversation("c1"));
    expect(await stores[3]!.getConversation("c1")).not.toBeNull();
    await Promise.all(stores.map((s) => s.close()));
    const rows = await withClient(url, (c) =>
      c.query("SELECT version, count(*)::int AS n FROM message_store_migrations GROUP BY version"),
    );
    expect(rows.rows).toHaveLength(LATEST_VERSION);
    for (const r of rows.rows) expect(r.n).toBe(1);
  });

  it("wait for the advisory lock held by another migrator", async () => {
    const url = await freshDatabase();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("SELECT pg_advisory_xact_lock(hashtext($1))", [
      "@message-store/postgres:migrate:public",
    ]);
    let opened = false;
    const opening = openStore(url).then((s) => {
      opened = true;
      return s;
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(opened).toBe(false);
    await holder.query("COMMIT");
    await holder.end();
    await (await opening).close();
    expect(await versions(url)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it("can be applied by a deploy role while the application role only has DML rights", async () => {
    const url = await freshDatabase();
    const role = `ms_app_${Date.now().toString(36)}`;
    const deployPool = new pg.Pool({ connectionString: url });
    await migrate(deployPool, "app");
    await deployPool.query(`CREATE ROLE ${role} LOGIN;
      GRANT USAGE ON SCHEMA app TO ${role};
      GRANT SELECT ON app.message_store_migrations TO ${role};
      GRANT SELECT, INSERT, UPDATE, DELETE ON app.conversations, app.messages, app.turn_traces TO ${role};
      GRANT USAGE ON SEQUENCE app.messages_seq TO ${role};
      GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA app TO ${role};`);
    try {
      const appUrl = new URL(url);
      appUrl.username = role;
      const store = await openStore(appUrl.toString(), { schema: "app" });
      await store.storeConversation(conversation("c1"));
      await store.storeMessages([message("m1", "c1", 1)]);
      await store.storeTurnTrace(trace("t1", "m1", "c1"));
      expect(await store.deleteUserData("u1")).toEqual({
        conversations: 1,
        messages: 1,
        turnTraces: 1,
      });
      await store.close();
    } finally {
      await deployPool.query(`DROP OWNED BY ${role}`);
      await deployPool.end();
      await dropTestDatabase(created.pop()!);
      await withClient(inject("postgresUrl"), (c) => c.query(`DROP ROLE ${role}`));
    }
  });

  it("refuse a schema written by a newer version of the package", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    await withClient(url, (c) =>
      c.query("INSERT INTO message_store_migrations (version, name) VALUES ($1, 'future')", [
        LATEST_VERSION + 1,
      ]),
    );
    await expect(openStore(url)).rejects.toBeInstanceOf(ConfigurationError);
  });
});
