import type { LLMCallRecordInput, TurnTraceInput } from "@message-store/core";
import type { Usage } from "@openai/agents";

/** The usage part of a `TurnTraceInput`. */
export type RunUsage = Pick<TurnTraceInput, "totalTokens" | "totalLatencyMs" | "llmCalls">;

/**
 * What a run cost, from its `RunContext.usage`: one `agent_loop` LLM call per model request
 * (`requestUsageEntries`; one call with the run's totals when the model reports no entries),
 * with its input and output tokens. The SDK gives a session neither the model's name nor
 * timings, so `model` comes from the caller and the run's latency (`latencyMs`, measured by the
 * session) is shared equally among its calls. Null when the run made no model request.
 */
export function runUsage(usage: Usage, model: string, latencyMs: number): RunUsage | null {
  const entries =
    usage.requestUsageEntries && usage.requestUsageEntries.length > 0
      ? usage.requestUsageEntries
      : usage.requests > 0
        ? [usage]
        : [];
  if (entries.length === 0) return null;
  const llmCalls: LLMCallRecordInput[] = entries.map((entry) => ({
    purpose: "agent_loop",
    model,
    promptTokens: entry.inputTokens,
    completionTokens: entry.outputTokens,
    latencyMs: latencyMs / entries.length,
  }));
  return { totalTokens: usage.totalTokens, totalLatencyMs: latencyMs, llmCalls };
}
