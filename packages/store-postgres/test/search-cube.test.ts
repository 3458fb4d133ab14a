import type { SearchQuery } from "@message-store/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { createQueries } from "../src/sql/queries.js";
import { conversation, message, openStore, useDatabase } from "./helpers.js";

/**
 * The cube prefilter (migration 4) must return exactly what scoring every row returns: the same
 * ids in the same order with the same scores. The data is built to make the approximation's
 * error matter: near ties (one element moved by one unit in the last place), scaled copies
 * (the same cosine up to rounding), magnitudes far apart, zero vectors, lengths at the chunk
 * boundaries and vectors whose top 10 are all within 1e-9 of each other.
 */

const db = useDatabase("ms_pg_search_cube");
const q = createQueries("public");
let store: PostgresMessageStore;
let client: pg.Client;

/** Deterministic pseudo-random numbers in [-1, 1) (xorshift32). */
function random(seed: number): () => number {
  let x = seed | 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) / 2 ** 32) * 2 - 1;
  };
}

const LENGTHS = [3, 95, 96, 97, 192, 1536];
const next = random(11);
const vector = (n: number) => Array.from({ length: n }, next);
/** `v` with element `i` moved by `ulps` units in the last place. */
function nudged(v: number[], i: number, ulps: number): number[] {
  const out = [...v];
  const x = out[i]!;
  out[i] = x + ulps * Math.abs(x) * Number.EPSILON;
  return out;
}

function family(n: number): number[][] {
  const base = vector(n);
  return [
    base,
    nudged(base, 0, 1),
    nudged(base, n - 1, -1),
    base.map((x) => x * 3),
    base.map((x) => x * 1e-40),
    base.map((x) => x * 1e50),
    base.map((x, i) => (i % 2 === 0 ? x : x * (1 + 1e-12))),
    Array(n).fill(0),
    ...Array.from({ length: 12 }, () => vector(n)),
  ];
}

/** The store's statement for `query`, its user as the request's scope. */
function searchOf({ userId, ...query }: SearchQuery, cubes: boolean) {
  return q.search(userId === undefined ? {} : { userId }, query, cubes);
}

async function rowsOf(query: SearchQuery, cubes: boolean): Promise<[string, number | null][]> {
  const statement = searchOf(query, cubes);
  const { rows } = await client.query(statement.text, statement.values);
  return rows.map((r) => [r.id, r.score]);
}

beforeAll(async () => {
  store = await openStore(db.url());
  client = new pg.Client({ connectionString: db.url() });
  await client.connect();
  for (const [u, n] of LENGTHS.entries()) {
    const conversationId = `c${u}`;
    await store.storeConversation(conversation(conversationId, `u${u}`));
    const vectors = [...family(n), ...family(n)];
    await store.storeMessages(
      vectors.map((embedding, i) =>
        message(`m${u}-${String(i).padStart(3, "0")}`, conversationId, i, {
          userId: `u${u}`,
          embedding,
        }),
      ),
    );
  }
});

afterAll(async () => {
  await client?.end();
  await store?.close();
});

describe("cube prefilter", () => {
  it("is in use on this server", async () => {
    const { rows } = await client.query(
      "SELECT count(*)::int AS n FROM messages WHERE embedding_cubes IS NOT NULL",
    );
    expect(rows[0].n).toBeGreaterThan(0);
  });

  it.each(LENGTHS.map((n, u) => [n, u]))(
    "returns exactly what an exact scan returns: %i dimensions",
    async (n, u) => {
      const probes = [...family(n), ...family(n).map((v) => nudged(v, 1, 2))];
      for (const embedding of probes) {
        for (const limit of [1, 3, 10]) {
          const query: SearchQuery = {
            embedding,
            userId: `u${u}`,
            limit,
            includeDeleted: false,
          } as SearchQuery;
          const exact = await rowsOf(query, false);
          expect(exact.length).toBeGreaterThan(0);
          expect(await rowsOf(query, true)).toEqual(exact);
        }
      }
    },
  );

  it("the store's search answers the same through it, embeddings bit for bit", async () => {
    const embedding = family(1536)[1]!;
    const hits = await store.searchMessages({ embedding, userId: "u5", limit: 5 });
    const exact = await rowsOf(
      { embedding, userId: "u5", limit: 5, includeDeleted: false } as SearchQuery,
      false,
    );
    expect(hits.map((h) => h.message.id)).toEqual(exact.slice(0, 5).map(([id]) => id));
    for (const hit of hits) {
      const stored = await store.getMessage(hit.message.id);
      expect(hit.message).toEqual(stored);
    }
  });

  it("answers the same under a generic plan, as the store's named statements get", async () => {
    const generic = new pg.Client({ connectionString: db.url() });
    await generic.connect();
    try {
      await generic.query("SET plan_cache_mode = force_generic_plan");
      for (const [i, embedding] of family(1536).entries()) {
        const query = { embedding, userId: "u5", limit: 10, includeDeleted: false } as SearchQuery;
        const statement = searchOf(query, true);
        const { rows } = await generic.query({ name: "cube", ...statement });
        expect(
          rows.map((r) => [r.id, r.score]),
          `probe ${i}`,
        ).toEqual(await rowsOf(query, false));
      }
    } finally {
      await generic.end();
    }
  });
});
