import { describe, expect, it } from "vitest";
import {
  AgentTraceOptionsSchema,
  ContextOptionsSchema,
  PageOptionsSchema,
  SearchQuerySchema,
  TurnTraceQuerySchema,
  UsageQuerySchema,
} from "../../src/index.js";

describe("query schemas", () => {
  it("PageOptionsSchema: limit 1…1e6, cursor optional or null, strict", () => {
    expect(PageOptionsSchema.parse({})).toEqual({});
    expect(PageOptionsSchema.parse({ limit: 1, cursor: null })).toEqual({ limit: 1, cursor: null });
    for (const bad of [
      { limit: 0 },
      { limit: 1.5 },
      { limit: 1_000_001 },
      { limit: NaN },
      { cursor: "" },
      { cursor: "x".repeat(4097) },
      { offset: 3 },
    ]) {
      expect(PageOptionsSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("AgentTraceOptionsSchema and TurnTraceQuerySchema validate every filter", () => {
    expect(AgentTraceOptionsSchema.parse({ since: 0, until: 10, limit: 2 })).toEqual({
      since: 0,
      until: 10,
      limit: 2,
      includeDeleted: false,
    });
    const full = {
      agentId: "a",
      conversationId: "c",
      userId: "u",
      tenantId: "t",
      includeDeleted: true,
      minTotalTokens: 0,
      toolName: "t",
      model: "m",
      hasErrors: false,
      since: 1,
      until: 2,
    };
    expect(TurnTraceQuerySchema.parse(full)).toEqual(full);
    for (const bad of [
      { minTotalTokens: -1 },
      { toolName: "" },
      { model: "" },
      { agentId: "" },
      { since: NaN },
      { hasErrors: 1 },
      { agent: "a" },
      { tenantId: "" },
      { includeDeleted: "yes" },
    ]) {
      expect(TurnTraceQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("UsageQuerySchema requires since, until and a known bucket", () => {
    expect(UsageQuerySchema.parse({ since: 0, until: 1, bucket: "day" })).toEqual({
      since: 0,
      until: 1,
      bucket: "day",
      includeDeleted: false,
    });
    expect(UsageQuerySchema.safeParse({ since: 0, until: 1, bucket: "week" }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ since: 0, bucket: "hour" }).success).toBe(false);
  });

  it("SearchQuerySchema defaults limit to 10 and caps it at 1000", () => {
    expect(SearchQuerySchema.parse({ embedding: [1] })).toEqual({
      embedding: [1],
      limit: 10,
      includeDeleted: false,
    });
    expect(SearchQuerySchema.safeParse({ embedding: [1], limit: 1001 }).success).toBe(false);
    expect(SearchQuerySchema.safeParse({ embedding: [] }).success).toBe(false);
    expect(SearchQuerySchema.safeParse({ embedding: [NaN] }).success).toBe(false);
  });

  it("ContextOptionsSchema validates compress", () => {
    expect(ContextOptionsSchema.parse({ compress: { maxChars: 1, keepChars: 0 } })).toEqual({
      compress: { maxChars: 1, keepChars: 0 },
    });
    for (const good of [
      { compress: true },
      { compress: false },
      { compress: {} },
      { compress: { maxChars: 5 } },
    ]) {
      expect(ContextOptionsSchema.parse(good)).toEqual(good);
    }
    for (const bad of [
      { compress: { maxChars: 0, keepChars: 0 } },
      { compress: { maxChars: 5, keepChars: -1 } },
      { compress: { maxChars: 5, keepChars: 1, ratio: 2 } },
      { compress: "yes" },
      { compress: null },
    ]) {
      expect(ContextOptionsSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
