import {
  type JsonObject,
  type LLMCallRecordInput,
  type ModelPricing,
  priceLLMCalls,
  type ToolTraceInput,
  type TurnTraceInput,
} from "@message-store/core";
import { toJson } from "./json-value.js";

/**
 * The part of an AI SDK `StepResult` a trace reads. Structural, so `steps` of `generateText` and
 * `streamText` on ai 5, 6 and 7 all fit.
 */
export interface StepUsageLike {
  usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
  /** ai 6+: the model the step was sent to. */
  model?: { modelId: string };
  /** The model that answered (`response-metadata`), when the provider says. */
  response?: { modelId?: string; timestamp?: Date };
  /** ai 7+: measured timings of the step. */
  performance?: { responseTimeMs: number; stepTimeMs: number };
  /** The tools the SDK ran after the step's model response, with their outputs. */
  toolResults?: readonly { toolName: string; output?: unknown }[];
}

/** Trace fields not derived from the steps. */
export interface TurnTraceOptions {
  /** Wall-clock start of the turn (epoch ms); needed for latency on ai 5 and 6. */
  startedAt?: number;
  metadata?: JsonObject;
  /** Per-token prices by model: each call's `costUsd` is filled from them (else it stays null). */
  pricing?: ModelPricing;
}

/** What a turn's steps say about its cost: the usage part of a `TurnTraceInput`. */
export type StepUsage = Pick<
  TurnTraceInput,
  "totalTokens" | "totalLatencyMs" | "llmCalls" | "toolTraces"
>;

/**
 * Token and latency totals of a turn from its steps: one `agent_loop` LLM call per step, with the
 * model that answered (`response.modelId`, else `model.modelId`), prompt and completion tokens
 * (missing counts are 0) and the step's model response time.
 *
 * Latency: ai 7 measures each step (`performance.responseTimeMs`; the turn's total is the sum of
 * `stepTimeMs`, tool runs included). ai 5 and 6 do not, so with `startedAt` the turn's total is
 * the wall-clock time since then and each call is given an equal share of it; without
 * `startedAt` latencies are 0. Each tool the SDK ran (`toolResults` of every step) is one tool
 * run with its output as `finalData` (its JSON size as `outputBytes`); its duration is known on ai 7 only (the step's time after
 * the model answered, shared among the step's tools), else null. With `pricing`, each call's `costUsd` is its model's price (core's
 * `priceLLMCalls`); without it, or for a model it does not list, `costUsd` is left unset (unknown,
 * not $0). Pure; throws `ValidationError` only for an invalid `pricing`.
 */
export function stepUsage(
  steps: readonly StepUsageLike[],
  options: TurnTraceOptions = {},
): StepUsage {
  const measured = steps.length > 0 && steps.every((s) => s.performance !== undefined);
  const totalLatencyMs = measured
    ? steps.reduce((sum, s) => sum + s.performance!.stepTimeMs, 0)
    : options.startedAt !== undefined
      ? Math.max(0, Date.now() - options.startedAt)
      : 0;
  const share = steps.length > 0 ? totalLatencyMs / steps.length : 0;
  const calls: LLMCallRecordInput[] = steps.map((s) => ({
    purpose: "agent_loop",
    model: s.response?.modelId || s.model?.modelId || "unknown",
    promptTokens: s.usage.inputTokens ?? 0,
    completionTokens: s.usage.outputTokens ?? 0,
    latencyMs: measured ? s.performance!.responseTimeMs : share,
  }));
  const totalTokens = steps.reduce(
    (sum, s) =>
      sum + (s.usage.totalTokens ?? (s.usage.inputTokens ?? 0) + (s.usage.outputTokens ?? 0)),
    0,
  );
  const toolTraces: ToolTraceInput[] = steps.flatMap((s) => {
    const results = s.toolResults ?? [];
    const toolTime = s.performance
      ? Math.max(0, s.performance.stepTimeMs - s.performance.responseTimeMs) / results.length
      : null;
    return results.map((r) => {
      const finalData = toJson(r.output, `output of tool ${r.toolName}`);
      return {
        toolName: r.toolName || "unknown",
        finalData,
        outputBytes: Buffer.byteLength(JSON.stringify(finalData)),
        durationMs: toolTime,
      };
    });
  });
  return {
    totalTokens,
    totalLatencyMs,
    llmCalls: priceLLMCalls(calls, options.pricing),
    toolTraces,
  };
}
