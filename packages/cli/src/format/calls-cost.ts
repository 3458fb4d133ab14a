import type { LLMCallRecord } from "@message-store/core";

/**
 * The cost of some LLM calls in US dollars: the sum of the priced ones (rounded to 1e-9), or
 * `null` when none was priced. Unknown is not zero: a store whose calls carry no `costUsd` (the
 * framework bridges without a `pricing` map) must not read as free.
 */
export function callsCostUsd(calls: Iterable<Pick<LLMCallRecord, "costUsd">>): number | null {
  let sum: number | null = null;
  for (const call of calls) if (call.costUsd !== null) sum = (sum ?? 0) + call.costUsd;
  return sum === null ? null : Math.round(sum * 1e9) / 1e9;
}

/** Adds two costs of which either may be unknown (`null`): unknown only when both are. */
export function addCosts(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.round((a + b) * 1e9) / 1e9;
}
