import type { Json, JsonObject, Message } from "@message-store/core";
import { isJsonObject } from "./json-value.js";

/** Key under `Message.metadata` holding what the bridge knows about a message. */
export const KEY = "ai-sdk";

/** A UIMessage as the chat store keeps it on its first stored message. */
export interface StoredUI {
  /** The UIMessage's own id (the stored message's id is derived from it, see `chatMessageId`). */
  id: string;
  role: "system" | "user" | "assistant";
  parts: Json[];
  metadata?: Json;
}

/** `metadata["ai-sdk"]` of a stored message. */
export interface BridgeMetadata {
  /** Chat store: the UIMessage this message is the first stored message of. */
  ui?: StoredUI;
  /** Chat store: the UIMessage id of the message's UIMessage, on its other stored messages. */
  uiMessageId?: string;
  /** `saveModelMessages`: the ModelMessage this message is the first stored message of. */
  model?: JsonObject;
  /** `saveModelMessages`: the id of the stored message holding the ModelMessage, on the others. */
  modelMessageId?: string;
  /** Ids of the message's provider-executed tool calls. */
  providerExecuted?: string[];
}

/** What the bridge stored about `message` (`{}` for a message written by other tools). */
export function bridgeMetadata(message: Pick<Message, "metadata">): BridgeMetadata {
  const value = message.metadata[KEY] ?? null;
  return isJsonObject(value) ? (value as BridgeMetadata) : {};
}

/** `metadata` with `bridge` merged into its `"ai-sdk"` entry (the entry left out when empty). */
export function withBridgeMetadata(
  metadata: JsonObject | undefined,
  bridge: BridgeMetadata,
): JsonObject {
  const merged = { ...bridgeMetadata({ metadata: metadata ?? {} }), ...bridge };
  const out: JsonObject = { ...metadata };
  if (Object.keys(merged).length > 0) out[KEY] = merged as unknown as JsonObject;
  return out;
}
