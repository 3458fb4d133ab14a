/**
 * OpenAI Agents SDK bridge for message-store: a `Session` backed by any store.
 * @packageDocumentation
 */
export { fieldsOf, groupItems } from "./items-to-record.js";
export { MessageStoreSession, type MessageStoreSessionOptions } from "./message-store-session.js";
export { itemsOf } from "./record-to-items.js";
export { type RunUsage, runUsage } from "./run-usage.js";
