import type { ConversationInput, MessageInput } from "@message-store/core";

/** A conversation of user `userId` (default `u1`). */
export function conversation(id: string, userId = "u1"): ConversationInput {
  return { id, userId, title: `conversation ${id}` };
}

/** A message whose content carries its version, so a lost update is visible. */
export function message(
  id: string,
  conversationId: string,
  timestamp: number,
  version = 0,
  extra: Partial<MessageInput> = {},
): MessageInput {
  return {
    id,
    conversationId,
    userId: "u1",
    role: "user",
    originalContent: `${id}|v${version}`,
    timestamp,
    metadata: { version },
    ...extra,
  };
}

/** The version written into a message by {@link message}. */
export function versionOf(m: { originalContent: string }): number {
  return Number(/\|v(\d+)/.exec(m.originalContent)?.[1] ?? Number.NaN);
}
