import type { MessageInput, MessageStore } from "../../src/index.js";
import { type RecordingDriver, type RecordingOptions, recordingStore } from "./recording-driver.js";

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

/** A store over a recording memory driver holding conversation `c1`, its call log cleared. */
export async function seeded(options?: RecordingOptions): Promise<MessageStore<RecordingDriver>> {
  const store = recordingStore(options);
  await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
  store.driver.calls.length = 0;
  return store;
}
