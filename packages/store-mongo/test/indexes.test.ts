import { describe, expect, it } from "vitest";
import { COLLECTIONS, INDEXES, MongoMessageStore } from "../src/index.js";
import { openFixture } from "./helpers.js";

function normalize(index: Record<string, unknown>) {
  return {
    name: index.name,
    key: index.key,
    unique: index.unique === true,
    partialFilterExpression: index.partialFilterExpression ?? null,
  };
}

describe("indexes", () => {
  it("initialize creates every index with its keys and options", async () => {
    const f = await openFixture();
    const listed = async (name: string) =>
      (await f.db.collection(name).listIndexes().toArray()).filter((i) => i.name !== "_id_");

    const conversations = await listed(COLLECTIONS.conversations);
    expect(conversations.map(normalize)).toEqual(
      expect.arrayContaining([
        {
          name: "conversations_user_activity",
          key: { userId: 1, lastActivityAt: -1, idKey: 1 },
          unique: false,
          partialFilterExpression: null,
        },
        {
          name: "conversations_user_id",
          key: { userId: 1, idKey: 1 },
          unique: false,
          partialFilterExpression: null,
        },
        {
          name: "conversations_id",
          key: { idKey: 1 },
          unique: false,
          partialFilterExpression: null,
        },
      ]),
    );
    const messages = await listed(COLLECTIONS.messages);
    expect(messages.map(normalize)).toEqual(
      expect.arrayContaining([
        {
          name: "messages_conversation_order",
          key: { conversationId: 1, timestamp: 1, sequence: 1 },
          unique: false,
          partialFilterExpression: null,
        },
        {
          name: "messages_conversation_sequence",
          key: { conversationId: 1, sequence: 1 },
          unique: true,
          partialFilterExpression: null,
        },
        {
          name: "messages_flagged",
          key: { userId: 1, timestamp: -1 },
          unique: false,
          partialFilterExpression: { isFlagged: true },
        },
      ]),
    );
    const traces = await listed(COLLECTIONS.turnTraces);
    expect(traces.map(normalize)).toEqual(
      expect.arrayContaining([
        {
          name: "turn_traces_message",
          key: { messageId: 1 },
          unique: true,
          partialFilterExpression: null,
        },
        {
          name: "turn_traces_agent_time",
          key: { agentId: 1, timestamp: -1, idKey: -1 },
          unique: false,
          partialFilterExpression: null,
        },
        {
          name: "turn_traces_conversation_time",
          key: { conversationId: 1, timestamp: -1, idKey: -1 },
          unique: false,
          partialFilterExpression: null,
        },
        {
          name: "turn_traces_user_time",
          key: { userId: 1, timestamp: -1, idKey: -1 },
          unique: false,
          partialFilterExpression: null,
        },
        {
          name: "turn_traces_time",
          key: { timestamp: -1, idKey: -1 },
          unique: false,
          partialFilterExpression: null,
        },
      ]),
    );
    // Exactly the published definitions, nothing else.
    expect(conversations).toHaveLength(INDEXES.conversations.length);
    expect(messages).toHaveLength(INDEXES.messages.length);
    expect(traces).toHaveLength(INDEXES.turnTraces.length);
  });

  it("initialize is idempotent: opening the same database again keeps the indexes and the data", async () => {
    const f = await openFixture();
    await f.store.storeConversation({ id: "c", userId: "u", createdAt: 1 });
    const again = await MongoMessageStore.open({
      storage: "mongodb",
      client: f.client,
      db: f.dbName,
    });
    expect(await again.getConversation("c")).not.toBeNull();
    for (const [key, name] of Object.entries(COLLECTIONS)) {
      const count = (await f.db.collection(name).listIndexes().toArray()).length;
      expect(count).toBe(INDEXES[key as keyof typeof COLLECTIONS].length + 1);
    }
    await again.close();
  });
});
