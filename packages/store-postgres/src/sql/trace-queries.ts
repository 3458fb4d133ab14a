import type { Scope, UsageQuery } from "@message-store/core";
import type { TraceFilter, TraceKey } from "@message-store/core/adapter";
import { encodeText, toJsonParam } from "../nul-codec.js";
import { selectList } from "./column-lists.js";
import { TURN_TRACE } from "./columns.js";
import { Params, type Statement, whereClause } from "./params.js";
import { ownerConditions } from "./scope-conditions.js";

const TRACE_COLUMNS = selectList(TURN_TRACE);

/** The trace lists and usage of schema `s` (a quoted identifier); part of `createQueries`. */
export function traceQueries(s: string) {
  const traces = `${s}.turn_traces`;
  return {
    /**
     * `(timestamp desc, id desc)` keyset with any filter. Tool and model filters are JSONB
     * containment, which the GIN indexes serve; agent, conversation and time ranges use B-trees.
     */
    listTraces(
      scope: Scope,
      filter: TraceFilter,
      after: TraceKey | null,
      take: number | null,
    ): Statement {
      const p = new Params();
      const where = traceConditions(scope, filter, p);
      if (after) {
        where.push(
          `("timestamp", id) < (${p.add(after.timestamp)}, ${p.add(encodeText(after.id))})`,
        );
      }
      return {
        text: `SELECT ${TRACE_COLUMNS} FROM ${traces}${whereClause(where)}
ORDER BY "timestamp" DESC, id DESC LIMIT ${p.add(take)}`,
        values: p.values,
      };
    },

    /** Raw sums per bucket, aggregated in SQL; core's `finalizeUsage` rounds them. */
    usage(
      scope: Scope,
      q: Omit<UsageQuery, "userId" | "tenantId"> & { bucketMs: number },
    ): Statement {
      const p = new Params();
      const where = [`"timestamp" >= ${p.add(q.since)}`, `"timestamp" < ${p.add(q.until)}`];
      if (q.agentId !== undefined) where.push(`agent_id = ${p.add(encodeText(q.agentId))}`);
      where.push(...ownerConditions(scope, p));
      if (!q.includeDeleted) where.push("deleted_at IS NULL");
      const size = p.add(q.bucketMs);
      return {
        text: `SELECT ("timestamp" / ${size}::bigint) * ${size}::bigint AS bucket_start,
       count(*) AS turns,
       sum(total_tokens) AS total_tokens,
       coalesce(sum(calls.prompt_tokens), 0) AS prompt_tokens,
       coalesce(sum(calls.completion_tokens), 0) AS completion_tokens,
       coalesce(sum(calls.cost_usd), 0) AS cost_usd,
       sum(total_latency_ms) AS latency_sum_ms,
       max(total_latency_ms) AS max_latency_ms,
       count(*) FILTER (WHERE errors <> '[]'::jsonb) AS turns_with_errors
  FROM ${traces} t
 CROSS JOIN LATERAL (
   SELECT sum((c->>'promptTokens')::bigint) AS prompt_tokens,
          sum((c->>'completionTokens')::bigint) AS completion_tokens,
          sum((c->>'costUsd')::numeric) AS cost_usd
     FROM jsonb_array_elements(t.llm_calls) AS c
 ) calls
 WHERE ${where.join(" AND ")}
 GROUP BY 1 ORDER BY 1`,
        values: p.values,
      };
    },
  };
}

/** The `queryTurnTraces` scope and filter as SQL; same semantics as core's `matchesTraceFilter`. */
function traceConditions(scope: Scope, f: TraceFilter, p: Params): string[] {
  const where: string[] = [];
  if (f.agentId !== undefined) where.push(`agent_id = ${p.add(encodeText(f.agentId))}`);
  if (f.conversationId !== undefined) {
    where.push(`conversation_id = ${p.add(encodeText(f.conversationId))}`);
  }
  where.push(...ownerConditions(scope, p));
  if (!f.includeDeleted) where.push("deleted_at IS NULL");
  if (f.since !== undefined) where.push(`"timestamp" >= ${p.add(f.since)}`);
  if (f.until !== undefined) where.push(`"timestamp" < ${p.add(f.until)}`);
  if (f.minTotalTokens !== undefined) where.push(`total_tokens >= ${p.add(f.minTotalTokens)}`);
  if (f.toolName !== undefined) {
    where.push(`tool_traces @> ${p.add(toJsonParam([{ toolName: f.toolName }]))}::jsonb`);
  }
  if (f.model !== undefined) {
    where.push(`llm_calls @> ${p.add(toJsonParam([{ model: f.model }]))}::jsonb`);
  }
  if (f.hasErrors !== undefined)
    where.push(f.hasErrors ? "errors <> '[]'::jsonb" : "errors = '[]'::jsonb");
  return where;
}
