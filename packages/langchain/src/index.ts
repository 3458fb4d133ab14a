/**
 * LangChain.js bridge for message-store: a `BaseListChatMessageHistory` backed by any store.
 * @packageDocumentation
 */
export { fromRecords } from "./from-records.js";
export {
  MessageStoreChatMessageHistory,
  type MessageStoreChatMessageHistoryInput,
} from "./message-store-chat-history.js";
export { type RecordTarget, toRecords, toTurns } from "./to-records.js";
export { type TurnUsage, turnUsage } from "./turn-usage.js";
