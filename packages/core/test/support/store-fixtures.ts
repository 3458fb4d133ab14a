import type { MessageInput } from "../../src/index.js";
import { MemoryMessageStore } from "./memory-message-store.js";

/** A valid message input in conversation `c1` of user `u1`. */
export const msg = (
  id: string,
  timestamp: number,
  fields: Partial<MessageInput> = {},
): MessageInput => ({
  id,
  conversationId: "c1",
  userId: "u1",
  role: "user",
  originalContent: id,
  timestamp,
  ...fields,
});

/** An in-memory store holding conversation `c1`, with its hook log cleared. */
export async function seeded(): Promise<MemoryMessageStore> {
  const store = new MemoryMessageStore();
  await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
  store.hookCalls.length = 0;
  return store;
}
