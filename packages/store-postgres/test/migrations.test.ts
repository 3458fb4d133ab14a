import { ConfigurationError, StorageError } from "@message-store/core";
import { dropTestDatabase } from "@message-store/test-servers";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { LATEST_VERSION, migrate } from "../src/index.js";
import { applySchema, packagePlan, type SchemaPlan } from "../src/migrate.js";
import { functionsChecksum, functionsSql } from "../src/sql/functions.js";
import { MIGRATIONS } from "../src/sql/migrations.js";
import { conversation, freshDatabases, message, openStore, trace, withClient } from "./helpers.js";

const freshDatabase = freshDatabases("ms_pg_migrations");

async function recorded(url: string): Promise<{ version: number; checksum: string | null }[]> {
  const { rows } = await withClient(url, (c) =>
    c.query(
      "SELECT version, functions_checksum AS checksum FROM message_store_migrations ORDER BY version",
    ),
  );
  return rows;
}

/** Polls `done` every 20 ms, failing after 10 s. */
async function waitFor(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the condition");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A pool whose connections log every statement they send. */
function loggingPool(url: string, log: string[]): pg.Pool {
  class LoggingClient extends pg.Client {
    override query(...args: any[]): any {
      const config = args[0];
      log.push(typeof config === "string" ? config : (config?.text ?? ""));
      return (super.query as any)(...args);
    }
  }
  return new pg.Pool({ connectionString: url, Client: LoggingClient, max: 2 });
}

/** Replaces `ms_write_messages` by a function that always fails, as an older package's would differ. */
const BROKEN_WRITE_MESSAGES = `CREATE OR REPLACE FUNCTION public.ms_write_messages(
  p_batch jsonb, p_session jsonb, p_now bigint)
RETURNS TABLE (stored_id text, stored_tenant_id text, pending boolean, stored_timestamp bigint)
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'stale definition'; END $$`;

/** What a schema at the newest version records: the functions' checksum on the newest row. */
const EVERY_VERSION = () =>
  MIGRATIONS.map((m) => ({
    version: m.version,
    checksum: m.version === LATEST_VERSION ? functionsChecksum() : null,
  }));

const prosrc = (url: string) =>
  withClient(url, async (c) => {
    const { rows } = await c.query(
      "SELECT prosrc FROM pg_proc WHERE oid = to_regprocedure('public.ms_write_messages(jsonb,jsonb,bigint)')",
    );
    return rows[0].prosrc as string;
  });

describe("migrations", () => {
  it("are numbered 1..n without gaps", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(
      Array.from({ length: LATEST_VERSION }, (_, i) => i + 1),
    );
  });

  it("record every version with the checksum of the functions installed", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    expect(await recorded(url)).toEqual(EVERY_VERSION());
    expect(functionsChecksum()).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("are idempotent: every step and the functions can run twice", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    await withClient(url, async (c) => {
      for (const m of MIGRATIONS) await c.query(m.sql('"public"'));
      await c.query(functionsSql('"public"'));
    });
    const store = await openStore(url);
    await store.storeConversation(conversation("c1"));
    await store.storeMessages([message("m1", "c1", 1), message("m2", "c1", 1)]);
    const ids = (await store.getMessagesByConversationId("c1")).items.map((m) => m.id);
    expect(ids).toEqual(["m1", "m2"]);
    await store.close();
  });

  it("cost two reads and no lock on an up-to-date schema", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    const log: string[] = [];
    const pool = loggingPool(url, log);
    await migrate(pool, "public");
    await pool.end();
    expect(log).toHaveLength(2);
    expect(log.join("\n")).not.toMatch(/advisory|BEGIN|CREATE/);
  });

  it("re-install the functions when their derived definition changed, and only then", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    const derived = await prosrc(url);
    // Same checksum recorded: the cheap check trusts it and sends no DDL.
    await withClient(url, (c) => c.query(BROKEN_WRITE_MESSAGES));
    const trusting = await openStore(url);
    await trusting.storeConversation(conversation("c1"));
    const batch = [message("m1", "c1", 1), message("m2", "c1", 1)];
    await expect(trusting.storeMessages(batch)).rejects.toThrow(/stale definition/);
    await trusting.close();
    // Another checksum recorded (another package version installed its functions): re-installed.
    await withClient(url, (c) =>
      c.query("UPDATE message_store_migrations SET functions_checksum = 'sha256:older'"),
    );
    const store = await openStore(url);
    await store.storeMessages(batch);
    expect(await store.getMessage("m2")).not.toBeNull();
    await store.close();
    expect(await prosrc(url)).toBe(derived);
    // The checksum goes on the newest row; the older rows keep what they had.
    expect(await recorded(url)).toEqual(
      EVERY_VERSION().map((r) => (r.checksum === null ? { ...r, checksum: "sha256:older" } : r)),
    );
  });

  it("re-install changed functions once when several processes open at the same time", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    await withClient(url, async (c) => {
      await c.query(BROKEN_WRITE_MESSAGES);
      await c.query("UPDATE message_store_migrations SET functions_checksum = NULL");
    });
    const log: string[] = [];
    const pools = Array.from({ length: 4 }, () => loggingPool(url, log));
    // Hold the migration lock so that all four see the stale checksum and queue behind it: the
    // race happens on every run, not only when the scheduler happens to allow it.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query("SELECT pg_advisory_lock(hashtext($1))", [
      "@message-store/postgres:migrate:public",
    ]);
    const migrations = Promise.all(pools.map((p) => migrate(p, "public")));
    await waitFor(async () => {
      const { rows } = await blocker.query(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
      );
      return rows[0].n === 4;
    });
    await blocker.query("SELECT pg_advisory_unlock_all()");
    await blocker.end();
    await migrations;
    await Promise.all(pools.map((p) => p.end()));
    expect(log.filter((t) => t.includes("CREATE OR REPLACE FUNCTION"))).toHaveLength(1);
    expect(log.filter((t) => t.includes("pg_advisory_xact_lock"))).toHaveLength(4);
    expect(await recorded(url)).toEqual(EVERY_VERSION());
    const store = await openStore(url);
    await store.storeConversation(conversation("c1"));
    await store.storeMessages([message("m1", "c1", 1), message("m2", "c1", 1)]);
    await store.close();
  });

  it("upgrade a version-1 database: data kept, search columns filled, old overloads dropped", async () => {
    const url = await freshDatabase();
    // The schema as version 1 left it, with a function of a version-1 signature beside it.
    const v1: SchemaPlan = {
      migrations: [MIGRATIONS[0]!],
      functions: { sql: () => "SELECT 1", checksum: "sha256:v1" },
    };
    const pool = new pg.Pool({ connectionString: url });
    await applySchema(pool, "public", v1);
    await pool.end();
    await withClient(url, async (c) => {
      await c.query(`CREATE FUNCTION public.ms_put_messages(p_batch jsonb) RETURNS void
        LANGUAGE sql AS 'SELECT NULL'`);
      await c.query(`INSERT INTO conversations (id, user_id, created_at, updated_at)
        VALUES ('c1', 'u1', 1, 1)`);
      await c.query(`INSERT INTO messages (id, conversation_id, user_id, role, original_content,
        "timestamp", embedding) VALUES ('m1', 'c1', 'u1', 'user', 'hi', 5, '{1,0,0}'),
        ('m2', 'c1', 'u1', 'user', 'ho', 6, '{0,1,0}')`);
    });
    const store = await openStore(url);
    expect(await recorded(url)).toEqual([
      { version: 1, checksum: "sha256:v1" },
      ...EVERY_VERSION().slice(1),
    ]);
    const hits = await store.searchMessages({ embedding: [1, 0.1, 0], userId: "u1", limit: 1 });
    expect(hits.map((h) => h.message.id)).toEqual(["m1"]);
    expect(await store.softDeleteMessage("m1")).toBe(true);
    expect((await store.getMessagesByConversationId("c1")).items.map((m) => m.id)).toEqual(["m2"]);
    await store.close();
    const { rows } = await withClient(url, (c) =>
      c.query(`SELECT oid::regprocedure::text AS f FROM pg_proc
                WHERE proname IN ('ms_put_messages', 'ms_write_messages') ORDER BY 1`),
    );
    // The default layout writes batches through ms_write_messages and has no ms_put_messages.
    expect(rows).toEqual([{ f: "ms_write_messages(jsonb,jsonb,bigint)" }]);
  });

  it("run once when several processes open a fresh database at the same time", async () => {
    const url = await freshDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(url)));
    await stores[0]!.storeConversation(conversation("c1"));
    expect(await stores[3]!.getConversation("c1")).not.toBeNull();
    await Promise.all(stores.map((s) => s.close()));
    expect(await recorded(url)).toEqual(EVERY_VERSION());
  });

  it("apply a later version's step once, keeping the data, and record the functions on it", async () => {
    const url = await freshDatabase();
    const v1 = await openStore(url);
    await v1.storeConversation(conversation("c1"));
    await v1.storeMessages([message("m1", "c1", 5)]);
    await v1.storeTurnTrace(trace("t1", "m1", "c1"));
    await v1.close();
    const future: SchemaPlan = {
      ...packagePlan(),
      migrations: [
        ...MIGRATIONS,
        {
          version: LATEST_VERSION + 1,
          name: "a later step",
          sql: (s) => `ALTER TABLE ${s}.messages ADD COLUMN IF NOT EXISTS later text;
UPDATE ${s}.messages SET later = 'filled:' || id;`,
        },
      ],
    };
    const pools = Array.from({ length: 3 }, () => new pg.Pool({ connectionString: url }));
    await Promise.all(pools.map((p) => applySchema(p, "public", future)));
    await Promise.all(pools.map((p) => p.end()));
    const rows = await recorded(url);
    expect(rows.map((r) => r.version)).toEqual([
      ...MIGRATIONS.map((m) => m.version),
      LATEST_VERSION + 1,
    ]);
    expect(rows.at(-1)!.checksum).toBe(functionsChecksum());
    const { rows: later } = await withClient(url, (c) => c.query("SELECT later FROM messages"));
    expect(later).toEqual([{ later: "filled:m1" }]);
    // This package's version now refuses the schema, which a newer package wrote.
    await expect(openStore(url)).rejects.toBeInstanceOf(ConfigurationError);
  });

  it("leave nothing half-done when a step fails", async () => {
    const url = await freshDatabase();
    await (await openStore(url)).close();
    const failing: SchemaPlan = {
      ...packagePlan(),
      migrations: [
        ...MIGRATIONS,
        {
          version: LATEST_VERSION + 1,
          name: "fails halfway",
          sql: (s) => `ALTER TABLE ${s}.messages ADD COLUMN half text; SELECT 1 / 0;`,
        },
      ],
    };
    const pool = new pg.Pool({ connectionString: url });
    const error = await applySchema(pool, "public", failing).catch((e: unknown) => e);
    await pool.end();
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/^\[message-store\] \[postgres\] .*22012/);
    expect((await recorded(url)).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const { rows } = await withClient(url, (c) =>
      c.query(
        "SELECT count(*)::int AS n FROM information_schema.columns WHERE column_name = 'half'",
      ),
    );
    expect(rows[0].n).toBe(0);
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
    expect((await recorded(url)).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
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
      await store.storeMessage(message("m2", "c1", 2));
      await store.storeTurnTrace(trace("t1", "m1", "c1"));
      expect(await store.deleteUserData("u1")).toEqual({
        conversations: 1,
        messages: 2,
        turnTraces: 1,
      });
      await store.close();
    } finally {
      await deployPool.query(`DROP OWNED BY ${role}`);
      await deployPool.end();
      await dropTestDatabase(url);
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
    const error = await openStore(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/newer than this package supports/);
  });
});
