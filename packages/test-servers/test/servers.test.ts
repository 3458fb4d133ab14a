import { existsSync } from "node:fs";
import { MongoClient } from "mongodb";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  dropTestDatabase,
  findFreePort,
  type MongoServer,
  mongoForTests,
  type PostgresServer,
  postgresForTests,
  startEmbeddedPostgres,
  startJongodb,
} from "../src/index.js";

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

describe("embedded postgres", () => {
  let server: PostgresServer;

  beforeAll(async () => {
    server = await startEmbeddedPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("runs PostgreSQL 18", async () => {
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    const { rows } = await query(
      server.url,
      "SELECT version() AS v, current_setting('fsync') AS f",
    );
    expect(rows[0].v).toMatch(/^PostgreSQL 18\./);
    expect(rows[0].f).toBe("off");
  });

  it("creates and drops isolated test databases", async () => {
    const url = await createTestDatabase(server.url, "Servers-Test");
    expect(url).toMatch(/\/servers_test_[a-z0-9]+_[0-9a-f]{8}$/);
    await query(url, "CREATE TABLE t (id int)");
    const { rows } = await query(url, "SELECT current_database() AS db");
    expect(url.endsWith(`/${rows[0].db}`)).toBe(true);
    await dropTestDatabase(url);
    await expect(query(url, "SELECT 1")).rejects.toThrow(/does not exist/);
    await dropTestDatabase(url); // IF EXISTS
  });

  it("kill() crashes the server, start() recovers committed data", async () => {
    await query(server.url, "CREATE TABLE crash_t (id int); INSERT INTO crash_t VALUES (1)");
    await server.kill();
    await expect(query(server.url, "SELECT 1")).rejects.toThrow();
    await server.kill(); // no-op when not running
    await server.start();
    const { rows } = await query(server.url, "SELECT count(*)::int AS n FROM crash_t");
    expect(rows[0].n).toBe(1);
  });

  it("stop({keepData}) then start() keeps data on the same port", async () => {
    const port = server.port;
    await query(server.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('x')");
    await server.stop({ keepData: true });
    await expect(query(server.url, "SELECT 1")).rejects.toThrow();
    await server.stop({ keepData: true }); // idempotent
    await server.start();
    expect(server.port).toBe(port);
    const { rows } = await query(server.url, "SELECT v FROM kept");
    expect(rows).toEqual([{ v: "x" }]);
  });

  it("supports fsync=on and an explicit port", async () => {
    const port = await findFreePort();
    const other = await startEmbeddedPostgres({ fsync: true, port });
    expect(other.port).toBe(port);
    try {
      const { rows } = await query(other.url, "SELECT current_setting('fsync') AS f");
      expect(rows[0].f).toBe("on");
    } finally {
      await other.stop();
      await other.stop();
    }
    expect(existsSync(other.dataDir)).toBe(false);
  });
});

describe("jongodb", () => {
  let server: MongoServer;

  beforeAll(async () => {
    server = await startJongodb();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function withClient<T>(fn: (c: MongoClient) => Promise<T>): Promise<T> {
    const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  }

  it("gives a replica-set uri with polling server monitoring", () => {
    expect(server.uri).toBe(
      `mongodb://127.0.0.1:${server.port}/test?replicaSet=rs0&serverMonitoringMode=poll`,
    );
  });

  it("starts a standalone server without a replica set on request", async () => {
    const standalone = await startJongodb({ topology: "standalone" });
    try {
      expect(standalone.uri).not.toContain("replicaSet");
      const client = new MongoClient(standalone.uri);
      try {
        const hello = await client.db("admin").command({ hello: 1 });
        expect(hello.setName).toBeUndefined();
      } finally {
        await client.close();
      }
    } finally {
      await standalone.stop();
    }
  });

  it("inserts and finds", async () => {
    await withClient(async (c) => {
      const col = c.db("ts").collection<{ _id: string; n: number }>("docs");
      await col.insertOne({ _id: "a", n: 1 });
      expect(await col.findOne({ _id: "a" })).toEqual({ _id: "a", n: 1 });
    });
  });

  it("runs a transaction (commit and abort)", async () => {
    await withClient(async (c) => {
      const col = c.db("ts").collection<{ _id: string; n: number }>("tx");
      await col.insertOne({ _id: "seed", n: 0 });
      await c.withSession((s) =>
        s.withTransaction(async () => {
          await col.insertOne({ _id: "committed", n: 1 }, { session: s });
        }),
      );
      const s = c.startSession();
      try {
        s.startTransaction();
        await col.insertOne({ _id: "aborted", n: 2 }, { session: s });
        await s.abortTransaction();
      } finally {
        await s.endSession();
      }
      const ids = (await col.find().sort({ _id: 1 }).toArray()).map((d) => d._id);
      expect(ids).toEqual(["committed", "seed"]);
    });
  });

  it("kill() then start() reuses the port and uri; data is gone", async () => {
    const uri = server.uri;
    await server.kill();
    await server.start();
    expect(server.uri).toBe(uri);
    await withClient(async (c) => {
      expect(await c.db("ts").collection("docs").countDocuments()).toBe(0);
    });
  });

  it("stop() is idempotent", async () => {
    const other = await startJongodb();
    await other.stop();
    await other.stop();
    await expect(
      new MongoClient(other.uri, { serverSelectionTimeoutMS: 500 }).connect(),
    ).rejects.toThrow();
  });
});

describe("env overrides", () => {
  it("postgresForTests honours MESSAGE_STORE_POSTGRES_URL", async () => {
    const saved = process.env.MESSAGE_STORE_POSTGRES_URL;
    process.env.MESSAGE_STORE_POSTGRES_URL = "postgres://u@example.invalid:5432/db";
    try {
      const pgT = await postgresForTests();
      expect(pgT).toMatchObject({ url: "postgres://u@example.invalid:5432/db", server: null });
      await pgT.stop();
    } finally {
      if (saved === undefined) delete process.env.MESSAGE_STORE_POSTGRES_URL;
      else process.env.MESSAGE_STORE_POSTGRES_URL = saved;
    }
  });

  it("mongoForTests starts jongodb when MESSAGE_STORE_MONGODB_URL is unset", async () => {
    const saved = process.env.MESSAGE_STORE_MONGODB_URL;
    delete process.env.MESSAGE_STORE_MONGODB_URL;
    try {
      const m = await mongoForTests();
      expect(m.server?.uri).toBe(m.uri);
      await m.stop();
      await m.stop();
    } finally {
      if (saved !== undefined) process.env.MESSAGE_STORE_MONGODB_URL = saved;
    }
  });
});
