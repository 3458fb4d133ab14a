import {
  type CompressInput,
  type ConversationOwner,
  ensureConversation,
  type Message,
  type MessageStoreApi,
  type ReplayOptions,
  type TurnTrace,
  toModelMessages,
} from "@message-store/core";
import type { ModelMessage } from "ai";
import { fromModelMessages } from "./from-model-messages.js";
import type { StepUsageLike } from "./turn-trace.js";
import { writeTurnTrace } from "./write-trace.js";

/** What {@link saveModelMessages} stores. */
export interface SaveModelMessagesOptions extends ConversationOwner {
  conversationId: string;
  /**
   * The turn to append, in order: typically the user's message followed by
   * `await result.responseMessages` (ai 7) or `(await result.response).messages` (ai 5/6).
   */
  messages: readonly ModelMessage[];
  /** `await result.steps`: when given, the turn's trace is stored on its last assistant message. */
  steps?: readonly StepUsageLike[];
  /** Wall-clock start of the turn (epoch ms), for latency on ai 5 and 6. */
  startedAt?: number;
}

/** What a turn became in the store. */
export interface SavedTurn {
  /** The stored messages, in order. */
  messages: Message[];
  /** The stored trace, or null when no steps were given or the turn has no assistant message. */
  trace: TurnTrace | null;
}

/**
 * Appends one turn of AI SDK messages to a conversation, creating the conversation (for
 * `userId`, with `agentId`) if it does not exist. Messages are converted by
 * {@link fromModelMessages} and stored in one all-or-nothing batch, stamped no earlier than the
 * newest message already there so they always come last. With `steps`, a turn trace with the
 * steps' tokens, models and latencies is stored on the last assistant message, under `agentId`
 * (default `"ai-sdk"`).
 *
 * Throws `NotFoundError` when the conversation belongs to another user, and the store's errors
 * (`ValidationError`, `ConnectionError`, …); on a throw no message of the turn is stored.
 */
export async function saveModelMessages(
  store: MessageStoreApi,
  options: SaveModelMessagesOptions,
): Promise<SavedTurn> {
  const { conversationId, userId } = options;
  await ensureConversation(store, conversationId, options);
  const [newest] = await store.getImmediateContext(conversationId, 1);
  const inputs = fromModelMessages(options.messages, {
    conversationId,
    userId,
    timestamp: Math.max(Date.now(), newest?.timestamp ?? 0),
  });
  const messages = inputs.length > 0 ? await store.storeMessages(inputs) : [];
  const ender = messages.findLast((m) => m.role === "assistant");
  const trace =
    options.steps && options.steps.length > 0 && ender
      ? await writeTurnTrace(
          store,
          { conversationId, messageId: ender.id, agentId: options.agentId ?? "ai-sdk", userId },
          options.steps,
          { startedAt: options.startedAt },
        )
      : null;
  return { messages, trace };
}

/** Options of {@link loadModelMessages}. */
export interface LoadModelMessagesOptions extends ReplayOptions {
  /** How many of the newest non-flagged messages to load. */
  limit: number;
  /**
   * Shorten long assistant messages to head + a hint naming the lookup tool + tail
   * (`getImmediateContext`'s `compress`); give the model `lookupMessageTool` with it.
   */
  compress?: CompressInput;
}

/**
 * The newest `limit` non-flagged messages of a conversation as AI SDK `ModelMessage[]`, oldest
 * first, ready for `streamText({ messages })`: `getImmediateContext` (compressed with
 * `compress`) followed by core's `toModelMessages` (tool calls paired with their results). `[]`
 * for an unknown conversation.
 */
export async function loadModelMessages(
  store: MessageStoreApi,
  conversationId: string,
  options: LoadModelMessagesOptions,
): Promise<ModelMessage[]> {
  const { compress, ...replay } = options;
  const window = await store.getImmediateContext(
    conversationId,
    options.limit,
    compress === undefined ? {} : { compress },
  );
  return toModelMessages(window, replay);
}
