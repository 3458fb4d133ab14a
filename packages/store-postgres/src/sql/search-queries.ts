import type { SearchQuery } from "@message-store/core";
import { encodeText } from "../nul-codec.js";
import { selectList } from "./column-lists.js";
import { MESSAGE } from "./columns.js";
import { Params, type Statement } from "./params.js";

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

const MESSAGE_COLUMNS = selectList(MESSAGE);

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

/** The search's filters (before ranking) as SQL, on table alias `m`. */
function searchConditions(q: SearchQuery, p: Params): string[] {
  const where = ["NOT m.is_flagged", `m.embedding_dims = ${p.add(q.embedding.length)}`];
  if (!q.includeDeleted) where.push("m.deleted_at IS NULL");
  if (q.userId !== undefined) where.push(`m.user_id = ${p.add(encodeText(q.userId))}`);
  if (q.tenantId !== undefined) where.push(`m.tenant_id = ${p.add(encodeText(q.tenantId))}`);
  if (q.conversationId !== undefined) {
    where.push(`m.conversation_id = ${p.add(encodeText(q.conversationId))}`);
  }
  return where;
}

/** The brute-force float8[] search statement for schema `s` (a quoted identifier). */
export function searchStatement(s: string, q: SearchQuery): Statement {
  const messages = `${s}.messages`;
  const p = new Params();
  const filters = searchConditions(q, p).join("\n   AND ");
  const unscored = `SELECT ${MESSAGE_COLUMNS}, NULL::float8 AS score FROM ${messages} m`;
  if (!isSafeVector(q.embedding))
    return { text: `${unscored}\n WHERE ${filters}`, values: p.values };
  const vector = p.add(q.embedding);
  const norm = p.add(squaredNorm(q.embedding));
  return {
    text: `WITH top AS (
  SELECT m.id AS hit_id, sc.score
    FROM ${messages} m
   CROSS JOIN LATERAL (
     SELECT CASE WHEN m.embedding_norm = 0 OR ${norm}::float8 = 0 THEN 0::float8
                 ELSE sum(u.a * u.b) / sqrt(m.embedding_norm * ${norm}::float8) END AS score
       FROM (SELECT unnest(m.embedding) AS a, unnest(${vector}::float8[]) AS b) u
   ) sc
   WHERE ${filters}
     AND m.embedding_norm IS NOT NULL
   ORDER BY floor(sc.score * 1e9::float8 + 0.5) DESC, m.id
   LIMIT ${p.add(q.limit)}
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
export function vectorSearchStatement(s: string, q: SearchQuery): Statement {
  if (!fitsVector(q.embedding)) return searchStatement(s, q);
  const messages = `${s}.messages`;
  const p = new Params();
  const filters = searchConditions(q, p).join("\n   AND ");
  const nullable = (v: string | undefined) => (v === undefined ? null : encodeText(v));
  const args = [
    `${p.add(q.embedding)}::float8[]`,
    `${p.add(nullable(q.userId))}::text`,
    `${p.add(nullable(q.tenantId))}::text`,
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
