import {
  type CompressInput,
  type ConversationOwner,
  callPricer,
  type JsonObject,
  type Message,
  type MessageStoreApi,
  type ModelPricing,
  newId,
  type ReplayOptions,
  type SessionTurn,
  type TurnTrace,
} from "@message-store/core";
import type { ModelMessage } from "ai";
import { withBridgeMetadata } from "./bridge-metadata.js";
import { modelMessageFields } from "./from-model-messages.js";
import { toJson } from "./json-value.js";
import { type ModelCallResult, responseMessagesOf } from "./model-call-result.js";
import { checkedModelMessages } from "./model-message-input.js";
import { modelMessagesOf, type SystemMessages } from "./model-window.js";
import type { StepUsageLike } from "./turn-trace.js";
import { writeTurnTrace } from "./write-trace.js";

/** What {@link saveModelMessages} stores. */
export interface SaveModelMessagesOptions extends ConversationOwner {
  conversationId: string;
  /** Messages to append first, in order: typically the user's prompt of the turn. */
  messages?: readonly ModelMessage[];
  /**
   * The `generateText` / `streamText` result of the turn: its response messages (of every step,
   * on every `ai` major) are appended after `messages`, and its `steps` give the turn's trace.
   */
  result?: ModelCallResult;
  /** The turn's steps, when no `result` is given: the trace is stored from them. */
  steps?: readonly StepUsageLike[];
  /** Wall-clock start of the turn (epoch ms), for latency on ai 5 and 6. */
  startedAt?: number;
  /**
   * Per-token prices by model (core's `ModelPricing`): the trace's LLM calls get their `costUsd`
   * from it. Without it costs stay unknown (null), never $0.
   */
  pricing?: ModelPricing;
}

/** What a turn became in the store. */
export interface SavedTurn {
  /** The stored messages, in order. */
  messages: Message[];
  /** The stored trace, or null when no steps were given or the turn has no assistant message. */
  trace: TurnTrace | null;
}

/** The store as the owner sees it: through `forUser` (and `forTenant`). */
function ownerView(store: MessageStoreApi, owner: ConversationOwner): MessageStoreApi {
  const user = store.forUser(owner.userId);
  return owner.tenantId == null ? user : user.forTenant(owner.tenantId);
}

/**
 * The turns of `messages`: each `ModelMessage` becomes its stored messages (see
 * `fromModelMessages`), the first of which keeps the `ModelMessage` itself; the others point to
 * it.
 */
function modelTurns(messages: readonly ModelMessage[]): SessionTurn[] {
  return messages.flatMap((message, index) => {
    const model = toJson(message, `message ${index}`) as JsonObject;
    const headId = newId();
    return modelMessageFields(message).map(
      ({ originalContent, providerExecuted, ...fields }, i) => ({
        ...fields,
        id: i === 0 ? headId : newId(),
        content: originalContent,
        metadata: withBridgeMetadata(undefined, {
          ...(i === 0 ? { model } : { modelMessageId: headId }),
          ...(providerExecuted ? { providerExecuted } : {}),
        }),
      }),
    );
  });
}

/**
 * Appends one turn of AI SDK messages to a conversation in one atomic write, creating the
 * conversation (for `userId`, with `agentId`, `tenantId`, `title`) if it does not exist and
 * placing the turn after the newest stored message: `messages`, then the response messages of
 * `result`. Each `ModelMessage` is stored as ordinary messages (see `fromModelMessages`) and
 * kept whole, so that {@link loadModelMessages} gives it back as it was. With `steps` (or a
 * `result`), a turn trace with the steps' tokens, models and latencies is stored on the last
 * assistant message, under `agentId` (default `"ai-sdk"`).
 *
 * Throws `ValidationError` when one of `messages` is not a `ModelMessage` (an unknown role, a
 * content of the wrong type: checked before anything is written), `NotFoundError` when the
 * conversation belongs to another user, and the store's errors (`ValidationError`,
 * `ConnectionError`, …); on a throw no message of the turn is stored.
 */
export async function saveModelMessages(
  store: MessageStoreApi,
  options: SaveModelMessagesOptions,
): Promise<SavedTurn> {
  const { conversationId, userId, result } = options;
  callPricer(options.pricing); // an invalid map is refused before anything is stored
  const view = ownerView(store, options);
  const all = [
    ...checkedModelMessages(options.messages ?? []),
    ...(result ? await responseMessagesOf(result) : []),
  ];
  const turns = modelTurns(all);
  const messages =
    turns.length === 0
      ? []
      : await view.storeSessionMessages(conversationId, turns, {
          userId,
          ...(options.agentId ? { agentId: options.agentId } : {}),
          ...(options.tenantId ? { tenantId: options.tenantId } : {}),
          ...(options.title ? { title: options.title } : {}),
        });
  const steps = options.steps ?? (result ? await result.steps : undefined);
  const ender = messages.findLast((m) => m.role === "assistant");
  const trace =
    steps && steps.length > 0 && ender
      ? await writeTurnTrace(
          view,
          { conversationId, messageId: ender.id, agentId: options.agentId ?? "ai-sdk", userId },
          steps,
          { startedAt: options.startedAt, pricing: options.pricing },
        )
      : null;
  return { messages, trace };
}

/** Options of {@link loadModelMessages}. */
export interface LoadModelMessagesOptions extends ReplayOptions {
  /** How many of the newest non-flagged stored messages to load. */
  limit: number;
  /**
   * Shorten long assistant messages to head + a hint naming the lookup tool + tail
   * (`getImmediateContext`'s `compress`); give the model `lookupMessageTool` with it.
   */
  compress?: CompressInput;
  /**
   * Stored `system` messages: `"omit"` (default) leaves them out, so the result can be passed as
   * `messages` on every `ai` major (ai 7 rejects system messages there unless the call sets
   * `allowSystemInMessages: true`; ai 5 and 6 accept them with a warning); give your prompt as
   * the call's `system` (`instructions` on ai 7). `"keep"` keeps them in place.
   */
  systemMessages?: SystemMessages;
}

/**
 * The newest `limit` non-flagged stored messages of a conversation as AI SDK `ModelMessage[]`,
 * oldest first, ready for `streamText({ messages })`: what {@link saveModelMessages} stored comes
 * back as it was saved; messages written by other tools through core's `toModelMessages` (tool
 * calls paired with their results). Tool results whose call is older than the window are
 * dropped. `[]` for an unknown conversation.
 */
export async function loadModelMessages(
  store: MessageStoreApi,
  conversationId: string,
  options: LoadModelMessagesOptions,
): Promise<ModelMessage[]> {
  const { compress, limit, ...replay } = options;
  const window = await store.getImmediateContext(
    conversationId,
    limit,
    compress === undefined ? {} : { compress },
  );
  return modelMessagesOf(window, replay);
}
