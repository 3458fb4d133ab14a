import { describe, expect, it } from "vitest";
import { callPricer, priceLLMCalls, ValidationError } from "../src/index.js";

const call = (model: string, costUsd?: number | null) => ({
  purpose: "agent_loop" as const,
  model,
  promptTokens: 1000,
  completionTokens: 500,
  latencyMs: 10,
  ...(costUsd === undefined ? {} : { costUsd }),
});

const PRICING = {
  "gpt-4.1": { input: 2e-6, output: 8e-6 },
  "gpt-4.1-mini": { input: 4e-7, output: 1.6e-6 },
};

describe("pricing", () => {
  it("prices a call from its model's per-token prices", () => {
    const [big, mini] = priceLLMCalls([call("gpt-4.1"), call("gpt-4.1-mini")], PRICING);
    expect(big!.costUsd).toBe(0.006); // 1000 × 2e-6 + 500 × 8e-6
    expect(mini!.costUsd).toBe(0.0012);
  });

  it("prices a dated snapshot as its model, and only that", () => {
    const price = callPricer(PRICING);
    expect(price(call("gpt-4.1-2025-04-14"))).toBe(0.006);
    expect(price(call("gpt-4.1-mini-20250414"))).toBe(0.0012);
    expect(price(call("gpt-4.1-nano"))).toBeNull(); // not a prefix match onto gpt-4.1
  });

  it("leaves a model the map does not list unpriced (null, not 0) and keeps a reported cost", () => {
    const [unknown, reported] = priceLLMCalls([call("claude-x"), call("gpt-4.1", 0.5)], PRICING);
    expect(unknown!.costUsd).toBeNull();
    expect(reported!.costUsd).toBe(0.5);
  });

  it("changes nothing without a map and copies the calls it prices", () => {
    const calls = [call("gpt-4.1")];
    expect(priceLLMCalls(calls, undefined)).toEqual(calls);
    priceLLMCalls(calls, PRICING);
    expect(calls[0]).not.toHaveProperty("costUsd");
  });

  it("refuses a negative or missing price with a ValidationError naming the model", () => {
    expect(() => callPricer({ "gpt-4.1": { input: -1, output: 0 } })).toThrow(ValidationError);
    expect(() => callPricer({ "gpt-4.1": { input: 1 } } as never)).toThrow(/gpt-4\.1\.output/);
  });
});
