import { describe, expect, it } from "vitest";
import { LLMCallRecordSchema, ToolTraceSchema, TurnTraceSchema } from "../../src/index.js";

const minimal = {
  id: "t",
  messageId: "m",
  conversationId: "c",
  agentId: "a",
  timestamp: 5,
  totalTokens: 0,
  totalLatencyMs: 0,
};
const call = {
  purpose: "agent_loop",
  model: "gpt",
  promptTokens: 1,
  completionTokens: 2,
  latencyMs: 0.5,
} as const;

describe("TurnTraceSchema", () => {
  it("fills defaults, also inside LLM calls, tool traces and attempts", () => {
    const t = TurnTraceSchema.parse({
      ...minimal,
      llmCalls: [call],
      toolTraces: [{ toolName: "sql", generationAttempts: [{ attempt: 1, script: "s" }] }],
    });
    expect(t).toEqual({
      ...minimal,
      userId: null,
      tenantId: null,
      deletedAt: null,
      llmCalls: [{ ...call, costUsd: null, startedAt: null, error: null }],
      taskEmissions: [],
      toolTraces: [
        {
          toolName: "sql",
          input: null,
          generationAttempts: [{ attempt: 1, script: "s", error: null, llmCall: null }],
          finalScript: null,
          finalData: null,
          stdout: null,
          traceback: null,
          outputBytes: 0,
          peakMemoryBytes: null,
          durationMs: null,
          exitCode: null,
        },
      ],
      slotEvents: [],
      flowEvents: [],
      errors: [],
      reasoningSteps: [],
      metadata: {},
    });
  });

  it.each([
    ["unknown key", { extra: 1 }],
    ["negative totalTokens", { totalTokens: -1 }],
    ["fractional totalTokens", { totalTokens: 1.5 }],
    ["NaN latency", { totalLatencyMs: NaN }],
    ["Infinity latency", { totalLatencyMs: Infinity }],
    ["negative latency", { totalLatencyMs: -0.1 }],
    ["NaN timestamp", { timestamp: NaN }],
    ["id of 257 chars", { id: "x".repeat(257) }],
    ["numeric messageId", { messageId: 3 }],
    ["non-object error", { errors: ["boom"] }],
    ["BigInt in slot event", { slotEvents: [{ n: 1n }] }],
    [
      "cyclic metadata",
      {
        metadata: (() => {
          const o: any = {};
          o.o = o;
          return { o };
        })(),
      },
    ],
    ["unknown purpose", { llmCalls: [{ ...call, purpose: "chat" }] }],
    ["negative prompt tokens", { llmCalls: [{ ...call, promptTokens: -1 }] }],
    ["negative cost", { llmCalls: [{ ...call, costUsd: -0.01 }] }],
    ["empty model", { llmCalls: [{ ...call, model: "" }] }],
    ["unknown LLM call key", { llmCalls: [{ ...call, tokens: 3 }] }],
    [
      "attempt 0",
      { toolTraces: [{ toolName: "x", generationAttempts: [{ attempt: 0, script: "" }] }] },
    ],
    ["negative outputBytes", { toolTraces: [{ toolName: "x", outputBytes: -1 }] }],
    ["fractional exitCode", { toolTraces: [{ toolName: "x", exitCode: 0.5 }] }],
    ["Date finalData", { toolTraces: [{ toolName: "x", finalData: new Date() }] }],
  ])("rejects %s", (_, patch) => {
    expect(TurnTraceSchema.safeParse({ ...minimal, ...patch }).success).toBe(false);
  });

  it("accepts any JSON as finalData, with $ and . keys", () => {
    const finalData = { "$a.b": ["\u0000", 1.5, null] };
    expect(ToolTraceSchema.parse({ toolName: "x", finalData }).finalData).toEqual(finalData);
    expect(LLMCallRecordSchema.parse({ ...call, costUsd: 0 }).costUsd).toBe(0);
  });
});
