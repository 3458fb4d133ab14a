import type { MessageStore, SearchQueryInput } from "@message-store/core";
import type pg from "pg";
import { type Stat, sampleInterleaved, summarize, timed } from "./stats.js";

/**
 * The search statement of @message-store/postgres before #15, verbatim but for the column list
 * (`m.*`) and the optional user filter, for the ratio: it tests `cardinality(embedding)` and
 * every element's magnitude (two detoasts and a pass over the array) before scoring each row by
 * `unnest(a, b)`, all in SQL.
 */
export function previousQuery(schema: string, userFilter: boolean): string {
  const user = userFilter ? " AND user_id = $2" : " AND $2::text IS NULL";
  return `(SELECT m.*, sim.score FROM "${schema}".messages m
 CROSS JOIN LATERAL (
   SELECT CASE WHEN sum(a * a) = 0 OR sum(b * b) = 0 THEN 0::float8
               ELSE sum(a * b) / sqrt(sum(a * a) * sum(b * b)) END AS score
     FROM unnest(embedding, $3::float8[]) AS u(a, b)
 ) sim
 WHERE NOT is_flagged AND cardinality(embedding) = $1${user}
   AND (SELECT bool_and(x = 0 OR abs(x) BETWEEN 1e-75 AND 1e70) FROM unnest(embedding) AS x)
 ORDER BY floor(sim.score * 1e9::float8 + 0.5) DESC, id LIMIT $4)
UNION ALL
SELECT m.*, NULL::float8 AS score FROM "${schema}".messages m
 WHERE NOT is_flagged AND cardinality(embedding) = $1${user}
   AND NOT (SELECT bool_and(x = 0 OR abs(x) BETWEEN 1e-75 AND 1e70) FROM unnest(embedding) AS x)`;
}

/** Top-10 searches: ours through the store and, when given, the previous statement, interleaved. */
export async function sampleSearches(
  store: MessageStore,
  queries: (i: number) => SearchQueryInput,
  iterations: number,
  previous: { client: pg.Client; schema: string } | null,
): Promise<{ ours: Stat; previous?: Stat; sameIds: number }> {
  // Warm-up: the connection, and the named statement past its first five (custom) plans.
  for (let i = 0; i < 6; i++) await store.searchMessages(queries(iterations + i));
  if (!previous) {
    const samples: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const q = queries(i);
      samples.push(await timed(() => store.searchMessages(q)));
    }
    return { ours: summarize(samples), sameIds: 0 };
  }
  const hits: [string[], string[]] = [[], []];
  const text = (q: SearchQueryInput) => previousQuery(previous.schema, q.userId !== undefined);
  const { ours, raw } = await sampleInterleaved(iterations, (i) => {
    const q = queries(i);
    const values = [q.embedding.length, q.userId ?? null, q.embedding, q.limit ?? 10];
    return {
      ours: async () => {
        hits[0][i] = (await store.searchMessages(q)).map((h) => h.message.id).join();
      },
      raw: async () => {
        hits[1][i] = (await previous.client.query(text(q), values)).rows.map((r) => r.id).join();
      },
    };
  });
  const sameIds = hits[0].filter((ids, i) => ids === hits[1][i]).length;
  return { ours: summarize(ours), previous: summarize(raw), sameIds };
}
