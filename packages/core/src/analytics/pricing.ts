import { z } from "zod";
import type { LLMCallRecordInput } from "../models/turn-trace.js";
import { parseInput } from "../validation.js";

const PricePerToken = z.number().min(0).max(Number.MAX_VALUE);

/**
 * Prices per model, in US dollars **per token** (`{ "gpt-4.1": { input: 2e-6, output: 8e-6 } }`
 * for $2 and $8 per million): `input` for prompt tokens, `output` for completion tokens. The
 * framework bridges take it as their `pricing` option and fill each LLM call's `costUsd` from it.
 */
export const ModelPricingSchema = z.record(
  z.string().min(1),
  z.strictObject({ input: PricePerToken, output: PricePerToken }),
);
export type ModelPricing = z.input<typeof ModelPricingSchema>;

/** A dated snapshot (`gpt-4.1-2025-04-14`, `claude-sonnet-4-20250514`) is priced as its model. */
const DATED = /-(\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * Checks a pricing map once (throws `ValidationError` naming the model and field of a negative,
 * missing or non-numeric price) and returns the function that prices one call: its `costUsd`
 * when the call already has one (a cost the provider reported wins), else prompt tokens × input
 * price + completion tokens × output price of its model (the exact name, else the name without a
 * dated-snapshot suffix), else `null`: a model the map does not list stays unpriced, never $0.
 * Without a map every call keeps what it has.
 */
export function callPricer(
  pricing: ModelPricing | undefined,
): (
  call: Pick<LLMCallRecordInput, "model" | "promptTokens" | "completionTokens" | "costUsd">,
) => number | null {
  if (pricing === undefined) return (call) => call.costUsd ?? null;
  const prices = parseInput(ModelPricingSchema, pricing, "pricing");
  return (call) => {
    if (call.costUsd !== undefined && call.costUsd !== null) return call.costUsd;
    const price = prices[call.model] ?? prices[call.model.replace(DATED, "")];
    if (price === undefined) return null;
    const cost = call.promptTokens * price.input + call.completionTokens * price.output;
    return Math.round(cost * 1e12) / 1e12;
  };
}

/**
 * `calls` with `costUsd` filled from `pricing` (see {@link callPricer}); the calls are copied,
 * never changed. Throws `ValidationError` for an invalid map.
 */
export function priceLLMCalls<C extends LLMCallRecordInput>(
  calls: readonly C[],
  pricing: ModelPricing | undefined,
): C[] {
  if (pricing === undefined) return [...calls];
  const price = callPricer(pricing);
  return calls.map((call) => ({ ...call, costUsd: price(call) }));
}
