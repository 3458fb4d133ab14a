import type { MastraDBMessage } from "@mastra/core/agent/message-list";
import { PostgresStore } from "@mastra/pg";
import type { Message } from "@message-store/core";
import pg from "pg";
import type { PeerSystem } from "./peer-system.js";

/**
 * `@mastra/pg`'s `PostgresStore` as its docs say to use it without the Mastra class: constructed
 * on a pool, `init()` (tables and default indexes), then the memory domain's `saveThread`,
 * `saveMessages` (its batch API: one multi-row upsert per 1,000 messages in a transaction, after
 * a thread lookup) and `listMessages({ perPage, orderBy: createdAt DESC, includeTotal: false })`
 * (one index scan of `(thread_id, createdAt DESC)`), reversed to oldest first.
 */
export async function openMastra(
  dsn: string,
  poolSize: number,
): Promise<PeerSystem<MastraDBMessage>> {
  const pool = new pg.Pool({ connectionString: dsn, max: poolSize });
  pool.on("error", () => {});
  const storage = new PostgresStore({ id: "bench-mastra", pool });
  await storage.init();
  const memory = await storage.getStore("memory");
  if (!memory) throw new Error("@mastra/pg has no memory domain");
  return {
    name: "Mastra",
    writes:
      "8 columns (id, thread_id, content as JSON text, createdAt, createdAtZ, role, type, resourceId), an upsert, plus an UPDATE of the thread's updatedAt; 5 round trips (thread lookup, BEGIN, INSERT, UPDATE, COMMIT)",
    convert(m: Message): MastraDBMessage {
      return {
        id: m.id,
        role: m.role === "assistant" ? "assistant" : "user",
        threadId: m.conversationId,
        resourceId: m.userId,
        createdAt: new Date(m.timestamp),
        type: "v2",
        content: { format: 2, parts: [{ type: "text", text: m.originalContent }] },
      } as MastraDBMessage;
    },
    async createConversation(id, userId) {
      const now = new Date();
      await memory.saveThread({
        thread: { id, resourceId: userId, title: id, createdAt: now, updatedAt: now, metadata: {} },
      });
    },
    async storeBatch(records) {
      await memory.saveMessages({ messages: records });
    },
    async append(record) {
      await memory.saveMessages({ messages: [record] });
    },
    async lastN(conversationId, n) {
      const { messages } = await memory.listMessages({
        threadId: conversationId,
        perPage: n,
        page: 0,
        orderBy: { field: "createdAt", direction: "DESC" },
        includeTotal: false,
      });
      return messages.reverse();
    },
    async load(records) {
      for (let i = 0; i < records.length; i += 1000)
        await memory.saveMessages({ messages: records.slice(i, i + 1000) });
    },
    async close() {
      await storage.close();
      await pool.end();
    },
  };
}
