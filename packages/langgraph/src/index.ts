/**
 * LangGraph.js checkpointer on message-store: `MessageStoreSaver`, whose threads are the store's
 * conversations.
 * @packageDocumentation
 */
export { MessageStoreSaver } from "./message-store-saver.js";
export { DEFAULT_AGENT, type MessageStoreSaverOptions } from "./saver-options.js";
