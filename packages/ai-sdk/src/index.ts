/**
 * Vercel AI SDK bridge for message-store: store `generateText` / `streamText` results as
 * messages, replay them, persist `useChat` UIMessages, trace each turn's usage, and give the model
 * the lookup tool for compressed messages.
 * @packageDocumentation
 */

export type { ConversationOwner } from "@message-store/core";
export {
  type ChatStore,
  type ChatStoreOptions,
  createChatStore,
  type OnFinishOptions,
  type UIMessageStreamEndEvent,
} from "./chat/chat-store.js";
export { chatMessageId } from "./chat/ui-records.js";
export { type FromModelMessagesOptions, fromModelMessages } from "./from-model-messages.js";
export { lookupMessageTool } from "./lookup-message-tool.js";
export { type ModelCallResult, responseMessagesOf } from "./model-call-result.js";
export {
  type LoadModelMessagesOptions,
  loadModelMessages,
  type SavedTurn,
  type SaveModelMessagesOptions,
  saveModelMessages,
} from "./model-messages-memory.js";
export type { SystemMessages } from "./model-window.js";
export {
  type MessageStoreTelemetry,
  type MessageStoreTelemetryOptions,
  messageStoreTelemetry,
} from "./telemetry/message-store-telemetry.js";
export {
  type StepUsage,
  type StepUsageLike,
  stepUsage,
  type TurnTraceOptions,
} from "./turn-trace.js";
