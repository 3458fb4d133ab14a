import { cosineSimilarity } from "@message-store/core/adapter";
import { type PgliteServer, startPgliteServer } from "@message-store/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { openStore } from "./helpers.js";

/**
 * The pgvector path against a real pgvector (0.8, in PGlite over the wire protocol): the index
 * the migration creates, the plan of the ranking query, and what the approximate search returns.
 * The conformance suite runs on the same setup in tests-conformance (project "pglite").
 */

const USERS = 10;
const ROWS = 500;
const DIMS = 1_536;
let server: PgliteServer;
let store: PostgresMessageStore;
let client: pg.Client;

/** A deterministic unit-ish vector per seed (no model is downloaded). */
function vectorOf(seed: number): number[] {
  return Array.from(
    { length: DIMS },
    (_, j) => Math.sin(seed * 7.1 + j * 0.37) + ((seed * j) % 5) / 10,
  );
}

beforeAll(async () => {
  server = await startPgliteServer();
  // One backend session for every connection (see conformance-pglite.test.ts).
  store = await openStore(server.url, { pool_max: 1, prepared_statements: false });
  for (let u = 0; u < USERS; u++) {
    await store.storeConversation({ id: `c${u}`, userId: `u${u}`, createdAt: 1 });
  }
  for (let start = 0; start < ROWS; start += 100) {
    await store.storeMessages(
      Array.from({ length: 100 }, (_, k) => {
        const i = start + k;
        return {
          id: `m${String(i).padStart(4, "0")}`,
          conversationId: `c${i % USERS}`,
          userId: `u${i % USERS}`,
          role: "user" as const,
          originalContent: `text ${i}`,
          timestamp: i,
          embedding: vectorOf(i),
        };
      }),
    );
  }
  client = new pg.Client({ connectionString: server.url });
  await client.connect();
}, 300_000);

afterAll(async () => {
  await client?.end();
  await store?.close();
  await server?.stop();
});

describe("pgvector (PGlite)", () => {
  it("finds the extension and adds the vector column and the HNSW cosine index", async () => {
    expect(store.driver.usesPgvector).toBe(true);
    const { rows } = await client.query(
      "SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_msg_embedding_hnsw'",
    );
    const search = await client.query(
      "SELECT proconfig FROM pg_proc WHERE proname = 'ms_vector_search'",
    );
    expect(search.rows).toEqual([{ proconfig: ["hnsw.iterative_scan=strict_order"] }]);
    expect(rows[0].indexdef).toMatch(
      /USING hnsw \(\(\(embedding_vector\)::vector\(1536\)\) vector_cosine_ops\) WHERE \(embedding_dims = 1536\)/,
    );
  });

  it("ranks with <=> through the HNSW index (the query ms_vector_search runs)", async () => {
    // The planner prefers a sequential scan for 500 rows; with it off, the index must serve
    // the ORDER BY … <=> … LIMIT, which shows the expression and predicate match.
    await client.query("SET enable_seqscan = off");
    try {
      const { rows } = await client.query(
        `EXPLAIN (FORMAT JSON) SELECT m.id FROM messages m
          WHERE NOT m.is_flagged AND m.embedding_dims = 1536 AND m.embedding_vector IS NOT NULL
            AND m.user_id = 'u3' AND m.deleted_at IS NULL
          ORDER BY m.embedding_vector::vector(1536) <=> $1::float8[]::vector(1536) LIMIT 30`,
        [vectorOf(3)],
      );
      expect(JSON.stringify(rows[0]["QUERY PLAN"])).toContain(
        '"Index Name":"idx_msg_embedding_hnsw"',
      );
    } finally {
      await client.query("RESET enable_seqscan");
    }
  });

  it("a user's search returns only their messages, a full page, scored exactly", async () => {
    for (const u of [3, 7]) {
      const probe = vectorOf(u * 13 + 1);
      const hits = await store.searchMessages({ embedding: probe, userId: `u${u}`, limit: 10 });
      expect(hits).toHaveLength(10);
      expect(new Set(hits.map((h) => h.message.userId))).toEqual(new Set([`u${u}`]));
      for (const h of hits) {
        expect(h.score).toBeCloseTo(cosineSimilarity(probe, h.message.embedding!)!, 9);
      }
      // Exact top 10 of this user, by brute force: HNSW is approximate, but on this data it
      // finds at least 9 of them (recall is reported, not promised, by the README).
      const exact = Array.from({ length: ROWS }, (_, i) => i)
        .filter((i) => i % USERS === u)
        .map((i) => ({ i, score: cosineSimilarity(probe, vectorOf(i))! }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10)
        .map((x) => `m${String(x.i).padStart(4, "0")}`);
      const found = hits.filter((h) => exact.includes(h.message.id)).length;
      expect(found).toBeGreaterThanOrEqual(9);
    }
  });

  it("vectors float4 cannot hold are still found, scored exactly in JS", async () => {
    await store.storeMessage({
      id: "huge",
      conversationId: "c0",
      userId: "u0",
      role: "user",
      originalContent: "huge",
      timestamp: 1,
      embedding: vectorOf(0).map((x) => x * 1e300),
    });
    const hits = await store.searchMessages({ embedding: vectorOf(0), userId: "u0", limit: 2 });
    expect(hits.map((h) => h.message.id).sort()).toEqual(["huge", "m0000"]);
  });
});
