import { type TurnTraceInput, TurnTraceSchema } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { layoutWaterfall } from "../../studio/src/waterfall.js";

const base: TurnTraceInput = {
  id: "t",
  messageId: "m",
  conversationId: "c",
  agentId: "a",
  timestamp: 1_000_000,
  totalTokens: 0,
  totalLatencyMs: 5000,
};
const call = (purpose: string, latencyMs: number, startedAt: number | null, error?: string) => ({
  purpose: purpose as "agent_loop",
  model: "m",
  promptTokens: 1,
  completionTokens: 1,
  latencyMs,
  startedAt,
  error: error ?? null,
});

describe("layoutWaterfall", () => {
  it("places calls at their recorded start, tool runs after their script generation", () => {
    const trace = TurnTraceSchema.parse({
      ...base,
      llmCalls: [
        call("agent_loop", 1000, 10_000),
        call("script_generation", 500, 11_200),
        call("agent_loop", 800, 13_000, "rate limited"),
      ],
      toolTraces: [{ toolName: "run", durationMs: 600, exitCode: 1 }],
    });
    const { rows, totalMs } = layoutWaterfall(trace);
    expect(rows.map((r) => [r.label, r.startMs, r.durationMs, r.estimated, r.failed])).toEqual([
      ["agent_loop · m", 0, 1000, false, false],
      ["script_generation · m", 1200, 500, false, false],
      ["agent_loop · m", 3000, 800, false, true],
      ["tool · run", 1700, 600, true, true],
    ]);
    expect(totalMs).toBe(5000);
  });

  it("without start times, lays calls end to end and tool runs after the last call", () => {
    const trace = TurnTraceSchema.parse({
      ...base,
      totalLatencyMs: 100,
      llmCalls: [call("agent_loop", 300, null), call("agent_loop", 200, null)],
      toolTraces: [
        { toolName: "a", durationMs: 50 },
        { toolName: "b", durationMs: null },
        { toolName: "c", durationMs: 25 },
      ],
    });
    const { rows, totalMs } = layoutWaterfall(trace);
    expect(rows.map((r) => [r.startMs, r.durationMs, r.estimated])).toEqual([
      [0, 300, true],
      [300, 200, true],
      [500, 50, true],
      [550, 0, true],
      [550, 25, true],
    ]);
    // The axis covers the bars even when the recorded latency is shorter.
    expect(totalMs).toBe(575);
  });

  it("a tool run whose own generation call has a start time follows that call", () => {
    const trace = TurnTraceSchema.parse({
      ...base,
      llmCalls: [call("agent_loop", 100, 5000)],
      toolTraces: [
        {
          toolName: "x",
          durationMs: 10,
          generationAttempts: [
            { attempt: 1, script: "", llmCall: call("script_generation", 40, 5200) },
          ],
        },
      ],
    });
    expect(layoutWaterfall(trace).rows[1]).toMatchObject({ startMs: 240, durationMs: 10 });
  });
});
