import { describe, expect, it } from "vitest";
import {
  bucketStart,
  finalizeUsage,
  matchesUsageQuery,
  summarizeTraces,
  type UsageSums,
} from "../../src/adapter.js";
import { trace } from "../support/builders.js";

const H = 3_600_000;
const DAY = 24 * H;
const D = 10 * DAY; // a day-aligned origin

const llm = (promptTokens: number, completionTokens: number, costUsd: number | null) => ({
  purpose: "agent_loop" as const,
  model: "m",
  promptTokens,
  completionTokens,
  latencyMs: 1,
  costUsd,
});

const traces = [
  trace({
    timestamp: D,
    totalTokens: 100,
    totalLatencyMs: 10,
    llmCalls: [llm(10, 20, 0.1), llm(5, 5, null)],
  }),
  trace({
    timestamp: D + H - 1,
    totalTokens: 50,
    totalLatencyMs: 21,
    llmCalls: [llm(1, 2, 0.2)],
    errors: [{ e: 1 }],
  }),
  trace({ timestamp: D + H, totalTokens: 7, totalLatencyMs: 1, userId: "u2" }),
  trace({ timestamp: D + 2 * H + 5, totalTokens: 1, totalLatencyMs: 1 }),
  trace({ timestamp: D + 2 * H + 6, totalTokens: 1, totalLatencyMs: 1 }),
  trace({ timestamp: D + 2 * H + 7, totalTokens: 1, totalLatencyMs: 2 }),
  // outside the query: before since, at until (exclusive), another agent
  trace({ timestamp: D - 1, totalTokens: 1000, totalLatencyMs: 1 }),
  trace({ timestamp: D + 3 * H, totalTokens: 1000, totalLatencyMs: 1 }),
  trace({ timestamp: D, agentId: "other", totalTokens: 1000, totalLatencyMs: 1 }),
];

const base = { since: D, until: D + 3 * H, agentId: "a1" };

describe("bucketStart", () => {
  it.each([
    [0, "hour", 0],
    [H - 1, "hour", 0],
    [H, "hour", H],
    [DAY - 1, "day", 0],
    [DAY, "day", DAY],
    [1_700_000_000_000, "hour", 1_699_999_200_000],
    [1_700_000_000_000, "day", 1_699_920_000_000],
  ] as const)("bucketStart(%d, %s) = %d", (ts, bucket, expected) => {
    expect(bucketStart(ts, bucket)).toBe(expected);
  });
});

describe("summarizeTraces", () => {
  it("sums hourly buckets by hand", () => {
    expect(summarizeTraces(traces, { ...base, bucket: "hour" })).toEqual([
      {
        bucketStart: D,
        turns: 2,
        totalTokens: 150,
        promptTokens: 16,
        completionTokens: 27,
        costUsd: 0.3, // 0.1 + 0.2 = 0.30000000000000004 before rounding
        avgLatencyMs: 15.5,
        maxLatencyMs: 21,
        turnsWithErrors: 1,
      },
      {
        bucketStart: D + H,
        turns: 1,
        totalTokens: 7,
        promptTokens: 0,
        completionTokens: 0,
        costUsd: 0,
        avgLatencyMs: 1,
        maxLatencyMs: 1,
        turnsWithErrors: 0,
      },
      {
        bucketStart: D + 2 * H,
        turns: 3,
        totalTokens: 3,
        promptTokens: 0,
        completionTokens: 0,
        costUsd: 0,
        avgLatencyMs: 1.333, // 4 / 3
        maxLatencyMs: 2,
        turnsWithErrors: 0,
      },
    ]);
  });

  it("sums a daily bucket and filters by user", () => {
    expect(summarizeTraces(traces, { ...base, bucket: "day" })).toEqual([
      {
        bucketStart: D,
        turns: 6,
        totalTokens: 160,
        promptTokens: 16,
        completionTokens: 27,
        costUsd: 0.3,
        avgLatencyMs: 6, // 36 / 6
        maxLatencyMs: 21,
        turnsWithErrors: 1,
      },
    ]);
    const u2 = summarizeTraces(traces, { since: 0, until: D * 2, userId: "u2", bucket: "day" });
    expect(u2).toMatchObject([{ turns: 1, totalTokens: 7 }]);
    expect(summarizeTraces([], { ...base, bucket: "day" })).toEqual([]);
  });

  it("gives the same result whatever the input order", () => {
    const q = { ...base, bucket: "hour" as const };
    expect(summarizeTraces([...traces].reverse(), q)).toEqual(summarizeTraces(traces, q));
  });
});

describe("finalizeUsage", () => {
  const sums = (s: Partial<UsageSums>): UsageSums => ({
    bucketStart: 0,
    turns: 1,
    totalTokens: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    latencySumMs: 0,
    maxLatencyMs: 0,
    turnsWithErrors: 0,
    ...s,
  });

  it("drops empty buckets, sorts oldest first and rounds cost to 1e-9 and latency to 1e-3", () => {
    const out = finalizeUsage([
      sums({ bucketStart: 2 * H, costUsd: 2.0000000006, latencySumMs: 10, turns: 3 }),
      sums({ bucketStart: H, turns: 0 }),
      sums({ bucketStart: 0, costUsd: 1.0000000004, latencySumMs: 2, turns: 3 }),
    ]);
    expect(out.map((b) => [b.bucketStart, b.costUsd, b.avgLatencyMs])).toEqual([
      [0, 1, 0.667],
      [2 * H, 2.000000001, 3.333],
    ]);
  });
});

describe("matchesUsageQuery", () => {
  it("uses since inclusive, until exclusive, agent and user", () => {
    const q = { since: 10, until: 20, bucket: "hour" as const };
    expect(matchesUsageQuery(trace({ timestamp: 10 }), q)).toBe(true);
    expect(matchesUsageQuery(trace({ timestamp: 20 }), q)).toBe(false);
    expect(matchesUsageQuery(trace({ timestamp: 15 }), { ...q, agentId: "x" })).toBe(false);
    expect(matchesUsageQuery(trace({ timestamp: 15, userId: "u" }), { ...q, userId: "u" })).toBe(
      true,
    );
    expect(matchesUsageQuery(trace({ timestamp: 15 }), { ...q, userId: "u" })).toBe(false);
  });
});
