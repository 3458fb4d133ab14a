import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { ModelPricing } from "@message-store/core";

/** Options of `new MessageStoreSaver(store, options)`. */
export interface MessageStoreSaverOptions {
  /**
   * The owner of threads whose config has no `configurable.user_id` (and of `deleteThread`).
   * Without either, a put is refused and reads see the whole store as given.
   */
  userId?: string;
  /** The `agentId` of conversations the saver creates and of its turn traces, without `configurable.agent_id`. Default `"langgraph"`. */
  agentId?: string;
  /** The tenant of threads whose config has no `configurable.tenant_id`. */
  tenantId?: string;
  /**
   * The channel mirrored as the conversation's transcript (default `"messages"`, the channel of
   * `MessagesAnnotation` and `createAgent`); `false` mirrors nothing.
   */
  messagesChannel?: string | false;
  /** The serializer of checkpoints and channel values. Default: LangGraph's own (`JsonPlusSerializer`). */
  serde?: SerializerProtocol;
  /** Threads whose latest mirrored messages are remembered, so a step writes only what changed. Default 1000. */
  cachedThreads?: number;
  /**
   * Per-token prices by model (core's `ModelPricing`): the LLM calls of the turn traces get their
   * `costUsd` from it. Without it costs stay unknown (null), never $0. An invalid map is a
   * `ValidationError` in the constructor.
   */
  pricing?: ModelPricing;
}

/** The `agentId` used when neither the config nor the options name one. */
export const DEFAULT_AGENT = "langgraph";
