// A Worker that imports core, the memory engine and this adapter, as an application bundled
// for Cloudflare Workers would: it runs the store on the memory engine, pages with a cursor,
// and reports what opening a SQLite file does where no SQLite library is available.
import { MessageStore } from "@message-store/core";
import "@message-store/core/memory";
import { SqliteConfigSchema } from "@message-store/sqlite";

export default {
  async fetch(): Promise<Response> {
    const store = await MessageStore.initialize({ storage: "memory" });
    await store.storeConversation({ id: "c1", userId: "u1", title: "Edge" });
    await store.storeMessages(
      [0, 1, 2].map((i) => ({
        id: `m${i}`,
        conversationId: "c1",
        userId: "u1",
        role: "user" as const,
        originalContent: `hello ${i} é`,
        timestamp: 1_700_000_000_000 + i,
      })),
    );
    const first = await store.getMessagesByConversationId("c1", { limit: 2 });
    const second = await store.getMessagesByConversationId("c1", {
      limit: 2,
      cursor: first.nextCursor!,
    });
    const hits = await store.searchConversations({ text: "EDGE" });
    await store.close();
    const sqlite = await MessageStore.initialize({ storage: "sqlite", path: "x.db" }).then(
      () => "opened",
      (error: Error) => `${error.name}: ${error.message}`,
    );
    return Response.json({
      pages: [first.items.map((m) => m.id), second.items.map((m) => m.id)],
      hits: hits.items.map((h) => h.conversation.id),
      defaultSynchronous: SqliteConfigSchema.parse({ path: "x" }).synchronous,
      sqlite,
    });
  },
};
