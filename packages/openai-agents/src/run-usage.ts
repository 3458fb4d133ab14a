import {
  type LLMCallRecordInput,
  type ModelPricing,
  priceLLMCalls,
  type TurnTraceInput,
} from "@message-store/core";
import type { Usage } from "@openai/agents";

/** The usage part of a `TurnTraceInput`. */
export type RunUsage = Pick<TurnTraceInput, "totalTokens" | "totalLatencyMs" | "llmCalls">;

/** How much of a run's `RunContext.usage` is already in a trace. */
export interface UsageMark {
  /** Model requests traced: entries of `requestUsageEntries`, or `requests` without entries. */
  requests: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** The mark of everything `usage` holds now. */
export function markOf(usage: Usage): UsageMark {
  return {
    requests: usage.requestUsageEntries?.length || usage.requests,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
  };
}

/**
 * What a run cost since `mark`, from its `RunContext.usage`: one LLM call per model request made
 * since then (`requestUsageEntries`; without entries, one call with the totals added since the
 * mark), with its input and output tokens; `responses.compact` requests are `summarization`, the
 * others `agent_loop`. The SDK gives a session neither the model's name nor timings, so `model`
 * comes from the caller and `latencyMs` (measured by the session over the same span) is shared
 * equally among the calls. Null when no request was made since the mark.
 */
export function usageSince(
  usage: Usage,
  mark: UsageMark,
  model: string,
  latencyMs: number,
  pricing?: ModelPricing,
): RunUsage | null {
  const now = markOf(usage);
  if (now.requests <= mark.requests) return null;
  const entries = usage.requestUsageEntries?.length
    ? usage.requestUsageEntries.slice(mark.requests)
    : [
        {
          inputTokens: now.inputTokens - mark.inputTokens,
          outputTokens: now.outputTokens - mark.outputTokens,
          endpoint: undefined,
        },
      ];
  const llmCalls: LLMCallRecordInput[] = entries.map((entry) => ({
    purpose: entry.endpoint === "responses.compact" ? "summarization" : "agent_loop",
    model,
    promptTokens: entry.inputTokens,
    completionTokens: entry.outputTokens,
    latencyMs: latencyMs / entries.length,
  }));
  return {
    totalTokens: Math.max(0, now.totalTokens - mark.totalTokens),
    totalLatencyMs: latencyMs,
    llmCalls: priceLLMCalls(llmCalls, pricing),
  };
}
