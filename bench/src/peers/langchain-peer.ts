import { writeFile } from "node:fs/promises";
import { FileSystemChatMessageHistory } from "@langchain/community/stores/message/file_system";
import { PostgresChatMessageHistory } from "@langchain/community/stores/message/postgres";
import type { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
} from "@langchain/core/messages";
import type { Message } from "@message-store/core";
import pg from "pg";
import type { PeerSystem } from "./peer-system.js";

/** A message of ours as LangChain's chat history holds it (text only), tagged with its session. */
export interface LangChainRecord {
  sessionId: string;
  message: BaseMessage;
}

function convert(m: Message): LangChainRecord {
  const fields = { content: m.originalContent, id: m.id };
  return {
    sessionId: m.conversationId,
    message: m.role === "assistant" ? new AIMessage(fields) : new HumanMessage(fields),
  };
}

/** LangChain's stored form of messages (`{ ...data, type }`), as `addMessage` writes it. */
function storedJson(records: LangChainRecord[]): string {
  return JSON.stringify(
    mapChatMessagesToStoredMessages(records.map((r) => r.message)).map(({ data, type }) => ({
      ...data,
      type,
    })),
  );
}

/**
 * The calls both LangChain histories share, on one history instance per session (created on
 * first use and kept, as an application holding a session would).
 */
function historyCalls(make: (sessionId: string) => BaseListChatMessageHistory) {
  const sessions = new Map<string, BaseListChatMessageHistory>();
  const history = (sessionId: string) => {
    let h = sessions.get(sessionId);
    if (!h) {
      h = make(sessionId);
      sessions.set(sessionId, h);
    }
    return h;
  };
  return {
    convert,
    async createConversation(id: string) {
      // The Postgres history creates its table on first use; the file one reads its file.
      await history(id).getMessages();
    },
    async storeBatch(records: LangChainRecord[]) {
      await history(records[0]!.sessionId).addMessages(records.map((r) => r.message));
    },
    async append(record: LangChainRecord) {
      await history(record.sessionId).addMessage(record.message);
    },
    async lastN(conversationId: string, n: number) {
      return (await history(conversationId).getMessages()).slice(-n);
    },
  };
}

/**
 * `@langchain/community`'s `PostgresChatMessageHistory`, one instance per session on a shared
 * pool, as its docs show. Its table is `langchain_chat_histories (id SERIAL, session_id,
 * message JSONB)` with no index on `session_id` (it creates none). `addMessages` (the batch API,
 * from `BaseListChatMessageHistory`) awaits one `INSERT` per message; `getMessages()` is the only
 * read: the whole session `ORDER BY id`, sliced to the last `n` here.
 */
export async function openLangChainPostgres(
  dsn: string,
  poolSize: number,
): Promise<PeerSystem<LangChainRecord> & { pool: pg.Pool; addIndex(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: dsn, max: poolSize });
  pool.on("error", () => {});
  return {
    name: "LangChain",
    writes:
      "3 columns (id SERIAL, session_id, message JSONB: content, type, id, empty kwargs), one plain INSERT per message, no conversation row",
    pool,
    ...historyCalls((sessionId) => new PostgresChatMessageHistory({ sessionId, pool })),
    async load(records) {
      await pool.query(
        `INSERT INTO langchain_chat_histories (session_id, message)
         SELECT $1, m FROM jsonb_array_elements($2::jsonb) AS m`,
        [records[0]!.sessionId, storedJson(records)],
      );
    },
    async addIndex() {
      await pool.query(
        "CREATE INDEX IF NOT EXISTS bench_lc_session ON langchain_chat_histories (session_id, id)",
      );
      await pool.query("ANALYZE langchain_chat_histories");
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * `@langchain/community`'s `FileSystemChatMessageHistory` (the file-based chat history of the
 * current version): one JSON file, held in memory, rewritten whole by every `addMessage` (no
 * fsync); `getMessages()` converts the session's messages, sliced to the last `n` here.
 */
export function openLangChainFile(filePath: string): PeerSystem<LangChainRecord> {
  return {
    name: "LangChain file",
    writes:
      "the whole file rewritten (JSON.stringify of every session) on every addMessage, no fsync",
    ...historyCalls((sessionId) => new FileSystemChatMessageHistory({ sessionId, filePath })),
    async load(records) {
      // The file as the history writes it ({ userId: { sessionId: { messages } } }), before
      // the first use in this process (the history keeps one module-level copy).
      const messages = mapChatMessagesToStoredMessages(records.map((r) => r.message));
      await writeFile(filePath, JSON.stringify({ "": { [records[0]!.sessionId]: { messages } } }));
    },
    async close() {},
  };
}
