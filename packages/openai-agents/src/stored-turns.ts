import {
  type Json,
  type JsonObject,
  type Message,
  newId,
  type SessionTurn,
  sessionTurnOf,
} from "@message-store/core";
import type { AgentInputItem } from "@openai/agents";
import { fieldsOf, itemsAsJson } from "./items-to-record.js";

/** Key under `Message.metadata` holding what the session knows about a message. */
export const METADATA_KEY = "openai-agents";

/**
 * Why the session hid a message (flagged it): it keeps the message and its turn trace, and
 * leaves it out of `getItems`, replay and the context window.
 */
export type HiddenReason = "popped" | "replaced" | "mutated" | "cleared" | "compacted";

/** The history transaction a message was written by: `applyHistoryTransaction` remembers it. */
export interface StoredOperation {
  id: string;
  digest: string;
}

/** `metadata["openai-agents"]` of a message. */
export interface SessionMetadata {
  /** The SDK items the message stands for, as JSON (messages written by the session). */
  items?: Json[];
  operation?: StoredOperation;
  hidden?: HiddenReason;
}

/** What the session stored about `message` (`{}` for a message written by other tools). */
export function sessionMetadata(message: Message): SessionMetadata {
  const value = message.metadata[METADATA_KEY];
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as SessionMetadata)
    : {};
}

/** `message` rewritten in place (same id and place) with `metadata` as the session's. */
function sameMessage(message: Message, metadata: SessionMetadata): SessionTurn {
  return {
    ...sessionTurnOf(message),
    metadata: { ...message.metadata, [METADATA_KEY]: metadata as unknown as JsonObject },
  };
}

/** A new message standing for a group of items (see `groupItems`). */
export function newTurn(
  group: readonly AgentInputItem[],
  operation?: StoredOperation,
): SessionTurn {
  const items = itemsAsJson(group);
  const { originalContent, ...fields } = fieldsOf(items as unknown as AgentInputItem[]);
  const metadata: SessionMetadata = operation ? { items, operation } : { items };
  return {
    id: newId(),
    ...fields,
    content: originalContent,
    metadata: { [METADATA_KEY]: metadata as unknown as JsonObject },
  };
}

/** `message` rewritten to stand for `items` only (a non-empty part of what it stood for). */
export function rewrittenTurn(message: Message, items: readonly AgentInputItem[]): SessionTurn {
  const json = itemsAsJson(items);
  const { originalContent, ...fields } = fieldsOf(json as unknown as AgentInputItem[]);
  return {
    ...sameMessage(message, { ...sessionMetadata(message), items: json }),
    ...fields,
    content: originalContent,
  };
}

/** `message` flagged, with the reason; its items stay in its metadata for audit. */
export function hiddenTurn(message: Message, hidden: HiddenReason): SessionTurn {
  return { ...sameMessage(message, { ...sessionMetadata(message), hidden }), isFlagged: true };
}

/**
 * `message` without the transaction it was written by, hidden for `hidden` if it is not hidden
 * yet: what a clear or a compaction makes of every message, as `MemorySession` forgets its
 * operations when it is cleared.
 */
export function forgottenTurn(message: Message, hidden: HiddenReason): SessionTurn {
  const { operation: _operation, ...metadata } = sessionMetadata(message);
  return message.isFlagged
    ? sameMessage(message, metadata)
    : { ...sameMessage(message, { ...metadata, hidden }), isFlagged: true };
}
