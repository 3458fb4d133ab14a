/**
 * MongoDB adapter of message-store: `MessageStore.initialize({ storage: "mongodb", uri, db })`.
 * @packageDocumentation
 */
export { COLLECTIONS, INDEXES } from "./collections.js";
export { decodeKey, encodeKey, JSON_TEXT_KEY, KEY_ESCAPE, MAX_STORED_DEPTH } from "./key-codec.js";
export { createMessageStore, MongoMessageStore } from "./mongo-message-store.js";
