import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_NAMED, StatementNames } from "../src/connection/statement-names.js";
import { PostgresMessageStore, type PostgresStoreConfig } from "../src/index.js";
import { conversation, message, useDatabase } from "./helpers.js";

/**
 * `prepared_statements` (issue #17): the store's statements are named prepared statements by
 * default, parsed once per connection; off on request and always off behind a transaction-mode
 * pooler. Checked on the server (`pg_prepared_statements` of the one connection of the pool).
 */

const db = useDatabase("ms_pg_prepared");
const opened: { store: PostgresMessageStore; pool: pg.Pool }[] = [];

afterEach(async () => {
  for (const { store, pool } of opened.splice(0)) {
    await store.close();
    await pool.end();
  }
});

/** A store on a one-connection pool of the caller's, so the server's session is the store's. */
async function storeOn(
  extra: Partial<PostgresStoreConfig> = {},
  pool = new pg.Pool({ connectionString: db.url(), max: 1 }),
) {
  const store = await PostgresMessageStore.open({ storage: "postgres", pool, ...extra });
  opened.push({ store, pool });
  return { store, pool };
}

async function prepared(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ statement: string }>(
    "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'ms\\_%' ORDER BY prepare_time",
  );
  return rows.map((r) => r.statement.replace(/\s+/g, " "));
}

async function turn(store: PostgresMessageStore, c: string, k: number) {
  await store.storeMessage(message(`${c}-m${k}`, c, 10 + k));
  return store.getImmediateContext(c, 20);
}

describe("prepared statements", () => {
  it("are on by default: each statement is prepared once per connection and reused", async () => {
    const { store, pool } = await storeOn({ schema: "prep_default" });
    await store.storeConversation(conversation("c1"));
    for (let k = 0; k < 3; k++) expect(await turn(store, "c1", k)).toHaveLength(k + 1);
    const statements = await prepared(pool);
    expect(statements.filter((s) => s.includes("ms_write_message("))).toHaveLength(1);
    expect(
      statements.filter((s) => s.includes('ORDER BY "timestamp" DESC, seq DESC')),
    ).toHaveLength(1);
  });

  it("are off with prepared_statements: false", async () => {
    const { store, pool } = await storeOn({ schema: "prep_off", prepared_statements: false });
    await store.storeConversation(conversation("c1"));
    expect(await turn(store, "c1", 0)).toHaveLength(1);
    expect(await prepared(pool)).toEqual([]);
  });

  it("are always off behind a transaction-mode pooler", async () => {
    const { store, pool } = await storeOn({
      schema: "prep_pooler",
      transaction_pooler: true,
      prepared_statements: true,
    });
    await store.storeConversation(conversation("c1"));
    expect(await turn(store, "c1", 0)).toHaveLength(1);
    expect(await prepared(pool)).toEqual([]);
  });

  it("two stores on different schemas share one connection without a name clash", async () => {
    const pool = new pg.Pool({ connectionString: db.url(), max: 1 });
    const a = await storeOn({ schema: "prep_a" }, pool);
    const b = await PostgresMessageStore.open({ storage: "postgres", pool, schema: "prep_b" });
    try {
      await a.store.storeConversation(conversation("c1"));
      await b.storeConversation(conversation("c1", "u2"));
      for (let k = 0; k < 2; k++) {
        expect((await turn(a.store, "c1", k)).map((m) => m.userId)).toEqual(
          Array(k + 1).fill("u1"),
        );
        await b.storeMessage({ ...message(`b-m${k}`, "c1", 10 + k), userId: "u2" });
        expect((await b.getImmediateContext("c1", 20)).map((m) => m.id)).toEqual(
          Array.from({ length: k + 1 }, (_, i) => `b-m${i}`),
        );
      }
      const statements = await prepared(pool);
      expect(statements.filter((s) => s.includes('"prep_a".ms_write_message('))).toHaveLength(1);
      expect(statements.filter((s) => s.includes('"prep_b".ms_write_message('))).toHaveLength(1);
    } finally {
      await b.close();
    }
  });
});

describe("StatementNames", () => {
  it("names a text the same way every time, different texts differently, up to a bound", () => {
    const names = new StatementNames();
    const texts = Array.from({ length: MAX_NAMED + 10 }, (_, i) => `SELECT ${i}`);
    const given = texts.map((t) => names.nameOf(t));
    expect(new Set(given.slice(0, MAX_NAMED)).size).toBe(MAX_NAMED);
    expect(given.slice(MAX_NAMED)).toEqual(Array(10).fill(undefined));
    expect(names.nameOf(texts[3]!)).toBe(given[3]);
    // Derived from the text: another store's map gives the same text the same name.
    expect(new StatementNames().nameOf(texts[3]!)).toBe(given[3]);
  });
});
