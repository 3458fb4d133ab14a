import type { ModelMessage } from "ai";
import type { StepUsageLike } from "./turn-trace.js";

type Awaitable<T> = T | PromiseLike<T>;

/**
 * The part of a `generateText` / `streamText` result the bridge reads. Structural, so results of
 * ai 5, 6 and 7 all fit.
 */
export interface ModelCallResult {
  /** ai 7: the response messages of every step. */
  readonly responseMessages?: Awaitable<readonly ModelMessage[]>;
  /** ai 5 and 6: `messages` holds the response messages of every step (on ai 7, the last step's). */
  readonly response: Awaitable<{ readonly messages: readonly ModelMessage[] }>;
  readonly steps: Awaitable<readonly StepUsageLike[]>;
}

/**
 * The response messages of every step of a call: `responseMessages` where the result has them
 * (ai 7, whose `response.messages` holds the last step's only), else `response.messages`.
 */
export async function responseMessagesOf(result: ModelCallResult): Promise<ModelMessage[]> {
  if (result.responseMessages !== undefined) return [...(await result.responseMessages)];
  return [...(await result.response).messages];
}
