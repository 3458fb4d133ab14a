/**
 * Vercel AI SDK bridge for message-store: store `generateText` / `streamText` results as
 * messages, replay them, persist `useChat` UIMessages, and trace each turn's usage.
 * @packageDocumentation
 */
export {
  type ChatStore,
  type ChatStoreOptions,
  createChatStore,
  type OnFinishOptions,
  type UIMessageStreamEndEvent,
} from "./chat/chat-store.js";
export type { ConversationOwner } from "./ensure-conversation.js";
export { type FromModelMessagesOptions, fromModelMessages } from "./from-model-messages.js";
export {
  type LoadModelMessagesOptions,
  loadModelMessages,
  type SavedTurn,
  type SaveModelMessagesOptions,
  saveModelMessages,
} from "./model-messages-memory.js";
export {
  type StepUsage,
  type StepUsageLike,
  stepUsage,
  type TurnTraceOptions,
} from "./turn-trace.js";
