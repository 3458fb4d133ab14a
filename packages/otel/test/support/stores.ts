import { MessageStore, type MessageStoreApi, newId } from "@message-store/core";
import "@message-store/core/memory";

/** A memory store with one conversation: a user message and the assistant message `messageId`. */
export async function storeWithTurn(
  ids = { conversationId: newId(), messageId: newId() },
): Promise<{ store: MessageStoreApi; conversationId: string; messageId: string }> {
  const store = await MessageStore.initialize({ storage: "memory" });
  await store.storeSessionMessages(
    ids.conversationId,
    [
      { role: "user", content: "weather?" },
      { role: "assistant", content: "Sunny.", id: ids.messageId } as never,
    ],
    { userId: "u1" },
  );
  return { store, ...ids };
}
