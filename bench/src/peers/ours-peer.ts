import type { Message, MessageStore } from "@message-store/core";
import { makeConversation } from "../data.js";
import type { PeerSystem } from "./peer-system.js";

/** Our store in the peers' harness: the contract's calls, records as they are. */
export function oursAsPeer(
  store: () => MessageStore,
  writes: string,
  load: (records: Message[]) => Promise<void>,
  name = "ours",
): PeerSystem<Message> {
  return {
    name,
    writes,
    convert: (m) => m,
    async createConversation(id, userId) {
      await store().storeConversation(makeConversation(id, userId, "agent-peers"));
    },
    async storeBatch(records) {
      await store().storeMessages(records);
    },
    async append(record) {
      await store().storeMessage(record);
    },
    async lastN(conversationId, n) {
      return store().getImmediateContext(conversationId, n);
    },
    load,
    async close() {},
  };
}
