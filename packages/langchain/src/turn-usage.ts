import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import {
  type LLMCallRecordInput,
  type ModelPricing,
  priceLLMCalls,
  type TurnTraceInput,
} from "@message-store/core";

/** The usage part of a `TurnTraceInput`. */
export type TurnUsage = Pick<TurnTraceInput, "totalTokens" | "totalLatencyMs" | "llmCalls">;

function modelOf(message: AIMessage): string {
  const meta = message.response_metadata as { model_name?: unknown; model?: unknown } | undefined;
  const name = meta?.model_name ?? meta?.model;
  return typeof name === "string" && name !== "" ? name : "unknown";
}

/**
 * What a turn cost, from the AIMessages that carry `usage_metadata` (LangChain's standard usage
 * field): one `agent_loop` LLM call each, with `response_metadata.model_name` (or `.model`) as the
 * model and `input_tokens` / `output_tokens`; the turn's tokens are the sum of `total_tokens`.
 * LangChain does not put timings on messages, so the turn's latency is `latencyMs` (measured by
 * the caller) and each call gets an equal share of it. With `pricing` each call's `costUsd` is its
 * model's price (core's `priceLLMCalls`); otherwise it stays unknown (null), never $0. Null when
 * no message carries usage.
 */
export function turnUsage(
  messages: readonly BaseMessage[],
  latencyMs: number,
  pricing?: ModelPricing,
): TurnUsage | null {
  const calls = messages.filter(
    (m): m is AIMessage => AIMessage.isInstance(m) && m.usage_metadata !== undefined,
  );
  if (calls.length === 0) return null;
  const llmCalls: LLMCallRecordInput[] = calls.map((m) => ({
    purpose: "agent_loop",
    model: modelOf(m),
    promptTokens: m.usage_metadata!.input_tokens,
    completionTokens: m.usage_metadata!.output_tokens,
    latencyMs: latencyMs / calls.length,
  }));
  const totalTokens = calls.reduce((sum, m) => sum + m.usage_metadata!.total_tokens, 0);
  return { totalTokens, totalLatencyMs: latencyMs, llmCalls: priceLLMCalls(llmCalls, pricing) };
}
