/**
 * OpenAI Agents SDK bridge for message-store: a `Session` backed by any store.
 * @packageDocumentation
 */
export { fieldsOf, groupItems } from "./items-to-record.js";
export { MessageStoreSession, type MessageStoreSessionOptions } from "./message-store-session.js";
export { itemsOf } from "./record-to-items.js";
export { markOf, type RunUsage, type UsageMark, usageSince } from "./run-usage.js";
