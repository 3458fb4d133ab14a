import type { UsageBucket, UsageQuery } from "../models/queries.js";

/** A usage query whose `includeDeleted` may be left out (meaning `false`). */
export type UsageQueryInputFilter = Omit<UsageQuery, "includeDeleted"> & {
  includeDeleted?: boolean;
};

import type { TurnTrace } from "../models/turn-trace.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Start (epoch ms, UTC) of the hour or day that contains `timestamp`. */
export function bucketStart(timestamp: number, bucket: "hour" | "day"): number {
  const size = bucket === "hour" ? HOUR : DAY;
  return Math.floor(timestamp / size) * size;
}

/** Raw sums of one bucket, as an adapter's aggregation produces them. */
export interface UsageSums {
  bucketStart: number;
  turns: number;
  totalTokens: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  latencySumMs: number;
  maxLatencyMs: number;
  turnsWithErrors: number;
}

/**
 * Turns raw sums into the published {@link UsageBucket}, rounding the floating-point fields so
 * that every adapter returns identical numbers whatever order its database added them in.
 */
export function finalizeUsage(sums: UsageSums[]): UsageBucket[] {
  return sums
    .filter((s) => s.turns > 0)
    .sort((a, b) => a.bucketStart - b.bucketStart)
    .map((s) => ({
      bucketStart: s.bucketStart,
      turns: s.turns,
      totalTokens: s.totalTokens,
      promptTokens: s.promptTokens,
      completionTokens: s.completionTokens,
      costUsd: Math.round(s.costUsd * 1e9) / 1e9,
      avgLatencyMs: Math.round((s.latencySumMs / s.turns) * 1e3) / 1e3,
      maxLatencyMs: s.maxLatencyMs,
      turnsWithErrors: s.turnsWithErrors,
    }));
}

/** True when the trace falls in the query's window, agent, user and tenant (and is live, unless `includeDeleted`). */
export function matchesUsageQuery(t: TurnTrace, q: UsageQueryInputFilter): boolean {
  return (
    t.timestamp >= q.since &&
    t.timestamp < q.until &&
    (t.deletedAt === null || q.includeDeleted === true) &&
    (q.agentId === undefined || t.agentId === q.agentId) &&
    (q.userId === undefined || t.userId === q.userId) &&
    (q.tenantId === undefined || t.tenantId === q.tenantId)
  );
}

/**
 * Summarises traces in memory (for adapters that cannot aggregate server-side). Traces outside
 * the query are ignored.
 */
export function summarizeTraces(
  traces: Iterable<TurnTrace>,
  q: UsageQueryInputFilter,
): UsageBucket[] {
  const buckets = new Map<number, UsageSums>();
  for (const t of traces) {
    if (!matchesUsageQuery(t, q)) continue;
    const start = bucketStart(t.timestamp, q.bucket);
    let s = buckets.get(start);
    if (!s) {
      s = {
        bucketStart: start,
        turns: 0,
        totalTokens: 0,
        promptTokens: 0,
        completionTokens: 0,
        costUsd: 0,
        latencySumMs: 0,
        maxLatencyMs: 0,
        turnsWithErrors: 0,
      };
      buckets.set(start, s);
    }
    s.turns++;
    s.totalTokens += t.totalTokens;
    for (const call of t.llmCalls) {
      s.promptTokens += call.promptTokens;
      s.completionTokens += call.completionTokens;
      s.costUsd += call.costUsd ?? 0;
    }
    s.latencySumMs += t.totalLatencyMs;
    s.maxLatencyMs = Math.max(s.maxLatencyMs, t.totalLatencyMs);
    if (t.errors.length > 0) s.turnsWithErrors++;
  }
  return finalizeUsage([...buckets.values()]);
}
