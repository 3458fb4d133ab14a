import type { Scope, SearchQuery } from "@message-store/core";
import { encodeText } from "../nul-codec.js";
import { selectList } from "./column-lists.js";
import { MESSAGE } from "./columns.js";
import { Params, type Statement } from "./params.js";
import { ownerConditions } from "./scope-conditions.js";

/**
 * Semantic search over `double precision[]` embeddings, brute force but cheap per row:
 *
 * - the filters come first and are index conditions (`idx_msg_user`, `idx_msg_tenant`,
 *   `idx_msg_conv`), and the length test reads the stored `embedding_dims`, so rows of other
 *   users, tenants or lengths are never detoasted;
 * - each row's squared norm is stored (`embedding_norm`, a generated column), so a row costs one
 *   dot product: the two arrays unnested side by side in the target list (ProjectSet, which
 *   streams, unlike `unnest(a, b)` in FROM, which fills a tuplestore per row);
 * - only the top `limit` ids are ranked on `(id, score)`; the full rows are read for them alone.
 *
 * Scores are `dot / sqrt(|a|² |b|²)`, summed in element order; core rounds them to 1e-9 and
 * re-sorts. PostgreSQL raises an error where JS float arithmetic would underflow or overflow, so
 * vectors with an element outside {@link SAFE_MAGNITUDE} (0 allowed) are not scored in SQL: their
 * `embedding_norm` is NULL and they come back unscored (`score` null) after the top `limit`, and
 * so do all candidates when the query vector itself is such a vector; the caller scores them
 * with core's `cosineSimilarity`.
 */

/**
 * Magnitudes whose products, sums of up to 65,536 products and the product of two such sums stay
 * normal float8 numbers, so PostgreSQL computes them without an underflow or overflow error.
 * Frozen into migration 2 (`ms_squared_norm`).
 */
export const SAFE_MAGNITUDE = { min: "1e-75", max: "1e70" } as const;

/**
 * The hits' columns, the embedding in `array_send`'s binary form (decoded by `StoreIo.hits`):
 * formatting 1,536 float8 as text and parsing them back took ~0.5 ms a hit, the bytes ~0.15 ms,
 * and they are the same doubles bit for bit.
 */
const MESSAGE_COLUMNS = selectList(MESSAGE, "  ", { embedding: 'array_send("embedding")' });

function isSafeVector(v: readonly number[]): boolean {
  const min = Number(SAFE_MAGNITUDE.min);
  const max = Number(SAFE_MAGNITUDE.max);
  return v.every((x) => x === 0 || (Math.abs(x) >= min && Math.abs(x) <= max));
}

/** The squared norm summed in element order, exactly as `ms_squared_norm` sums it. */
function squaredNorm(v: readonly number[]): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return sum;
}

/** A search's query; its owners travel as the request's scope. */
export type SearchRequest = Omit<SearchQuery, "userId" | "tenantId">;

/** The search's scope and filters (before ranking) as SQL, on table alias `m`. */
function searchConditions(scope: Scope, q: SearchRequest, p: Params): string[] {
  const where = ["NOT m.is_flagged", `m.embedding_dims = ${p.add(q.embedding.length)}`];
  if (!q.includeDeleted) where.push("m.deleted_at IS NULL");
  where.push(...ownerConditions(scope, p, "m."));
  if (q.conversationId !== undefined) {
    where.push(`m.conversation_id = ${p.add(encodeText(q.conversationId))}`);
  }
  return where;
}

/**
 * Rows whose `cube` score may be in the top `limit` (migration 4): the cosine from per-chunk
 * Euclidean distances, computed in C by `cube_distance` (a·b = (|a|² + |b|² − Σ d²) / 2 over the
 * ≤ 96-element chunks of `embedding_cubes`), each with a bound `err` on its distance from the
 * exact score plus two rounding steps of 1e-9. A row whose upper bound is below the `limit`-th
 * best lower bound rounds strictly below `limit` rows, so only the others are scored exactly.
 */
function cubeCandidates(
  s: string,
  filters: string,
  [vector, norm, limit, dims]: readonly string[],
): string {
  const messages = `${s}.messages`;
  return `query AS MATERIALIZED (SELECT ${s}.ms_cube_chunks(${vector}::float8[]) AS cubes),
approx AS (
  SELECT m.id, a.score, (1e-14 * ${dims}::float8 + 1e-12)
           * ((m.embedding_norm + ${norm}::float8) / sqrt(m.embedding_norm * ${norm}::float8) + 2)
           + 2e-9 AS err
    FROM ${messages} m
   CROSS JOIN LATERAL (
     SELECT (m.embedding_norm + ${norm}::float8 - sum(d.d * d.d)) / 2
              / sqrt(m.embedding_norm * ${norm}::float8) AS score
       FROM (SELECT cube_distance(unnest(m.embedding_cubes), unnest(query.cubes)) AS d
               FROM query) d
   ) a
   WHERE ${filters}
     AND m.embedding_norm > 0 AND ${norm}::float8 > 0
),
cut AS (SELECT score - err AS low FROM approx ORDER BY score - err DESC LIMIT 1 OFFSET ${limit} - 1),
candidates AS (
  SELECT id FROM approx WHERE score + err >= COALESCE((SELECT low FROM cut), '-Infinity')
  UNION ALL
  -- Zero vectors score 0 exactly; they are few, and ranked by the exact pass.
  SELECT m.id FROM ${messages} m
   WHERE ${filters} AND m.embedding_norm IS NOT NULL
     AND (m.embedding_norm = 0 OR ${norm}::float8 = 0)
),`;
}

/**
 * The float8[] search statement for schema `s` (a quoted identifier). With `cubes` (migration 4
 * found contrib's `cube`), a C-computed approximation picks the candidates and only they are
 * scored exactly; otherwise every row under the filters is scored exactly.
 */
export function searchStatement(
  s: string,
  scope: Scope,
  q: SearchRequest,
  cubes = false,
): Statement {
  const messages = `${s}.messages`;
  const p = new Params();
  const filters = searchConditions(scope, q, p).join("\n   AND ");
  const unscored = `SELECT ${MESSAGE_COLUMNS}, NULL::float8 AS score FROM ${messages} m`;
  if (!isSafeVector(q.embedding))
    return { text: `${unscored}\n WHERE ${filters}`, values: p.values };
  const vector = p.add(q.embedding);
  const norm = p.add(squaredNorm(q.embedding));
  const limit = p.add(q.limit);
  const prefilter = cubes
    ? cubeCandidates(s, filters, [vector, norm, limit, p.add(q.embedding.length)])
    : "";
  const scored = cubes
    ? "m.id IN (SELECT id FROM candidates)"
    : `${filters}\n     AND m.embedding_norm IS NOT NULL`;
  return {
    text: `WITH ${prefilter}
top AS (
  SELECT m.id AS hit_id, sc.score
    FROM ${messages} m
   CROSS JOIN LATERAL (
     SELECT CASE WHEN m.embedding_norm = 0 OR ${norm}::float8 = 0 THEN 0::float8
                 ELSE sum(u.a * u.b) / sqrt(m.embedding_norm * ${norm}::float8) END AS score
       FROM (SELECT unnest(m.embedding) AS a, unnest(${vector}::float8[]) AS b) u
   ) sc
   WHERE ${scored}
   ORDER BY floor(sc.score * 1e9::float8 + 0.5) DESC, m.id
   LIMIT ${limit}
)
SELECT ${MESSAGE_COLUMNS}, top.score FROM top JOIN ${messages} m ON m.id = top.hit_id
UNION ALL
${unscored}
 WHERE ${filters}
   AND m.embedding_norm IS NULL`,
    values: p.values,
  };
}

/** True when pgvector can hold the query: float4 range, 16,000 dimensions, not the zero vector. */
function fitsVector(v: readonly number[]): boolean {
  return v.length <= 16_000 && v.every((x) => Math.abs(x) < 1e38) && v.some((x) => x !== 0);
}

/**
 * How many candidates the pgvector path asks for: float4 distances (and HNSW) may order near
 * ties differently from the exact float8 scores core ranks by, so a margin of extra candidates
 * lets core's re-sort pick the right top `limit`.
 */
export function vectorCandidates(limit: number): number {
  return limit * 2 + 10;
}

/**
 * With pgvector (migration 3): the nearest candidates under the filters from `ms_vector_search`
 * (HNSW for 1,536 dimensions, approximate; an exact scan otherwise), returned unscored so that
 * core scores them exactly from the float8 embedding; plus, unscored too, the rows pgvector cannot
 * hold (`embedding_vector` NULL). Falls back to {@link searchStatement} for a query vector
 * pgvector cannot hold.
 */
export function vectorSearchStatement(s: string, scope: Scope, q: SearchRequest): Statement {
  if (!fitsVector(q.embedding)) return searchStatement(s, scope, q);
  const messages = `${s}.messages`;
  const p = new Params();
  const filters = searchConditions(scope, q, p).join("\n   AND ");
  const nullable = (v: string | undefined) => (v === undefined ? null : encodeText(v));
  const args = [
    `${p.add(q.embedding)}::float8[]`,
    `${p.add(nullable(scope.userId))}::text`,
    `${p.add(nullable(scope.tenantId))}::text`,
    `${p.add(nullable(q.conversationId))}::text`,
    `${p.add(q.includeDeleted)}::boolean`,
    `${p.add(vectorCandidates(q.limit))}::integer`,
  ].join(", ");
  return {
    text: `SELECT ${MESSAGE_COLUMNS}, NULL::float8 AS score
  FROM ${s}.ms_vector_search(${args}) v JOIN ${messages} m ON m.id = v.hit_id
UNION ALL
SELECT ${MESSAGE_COLUMNS}, NULL::float8 AS score FROM ${messages} m
 WHERE ${filters}
   AND m.embedding_vector IS NULL`,
    values: p.values,
  };
}
