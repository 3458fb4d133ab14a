import type { Message } from "@message-store/core";
import type pg from "pg";
import type { RawStore } from "../adapters/types.js";
import { makeConversation } from "../data.js";
import type { PeerSystem } from "./peer-system.js";

/** One message: a plain INSERT of the columns the bench's raw batch insert writes. */
const INSERT_MESSAGE = `INSERT INTO messages (id, conversation_id, user_id, role, original_content,
  enhanced_message, explicit_context, episode_id, is_flagged, is_continuation, invoked_flows,
  invoked_tools, reasoning_steps, entities, intent, sentiment, sentiment_score, "timestamp",
  tool_calls, tool_call_id, tool_name, metadata, embedding)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13::jsonb, $14::jsonb,
  $15, $16, $17, $18, $19::jsonb, $20, $21, $22::jsonb, $23::float8[])`;

/** The parameters of {@link INSERT_MESSAGE}. */
function messageValues(m: Message): unknown[] {
  return [
    m.id,
    m.conversationId,
    m.userId,
    m.role,
    m.originalContent,
    m.enhancedMessage,
    m.explicitContext,
    m.episodeId,
    m.isFlagged,
    m.isContinuation,
    JSON.stringify(m.invokedFlows),
    JSON.stringify(m.invokedTools),
    JSON.stringify(m.reasoningSteps),
    JSON.stringify(m.entities),
    m.intent,
    m.sentiment,
    m.sentimentScore,
    m.timestamp,
    JSON.stringify(m.toolCalls),
    m.toolCallId,
    m.toolName,
    JSON.stringify(m.metadata),
    m.embedding,
  ];
}

/**
 * Our own tables at the cost of the table alone: hand-written SQL on the raw pool with none of the
 * store's rules, locks or conversation activity, and no mapping or checking of what comes back.
 * It is the floor any write path keeping our schema (its columns, indexes and foreign key) can
 * reach, so the "vs peers" rows show how much of a gap is the schema and how much the store.
 * Append: one plain `INSERT … VALUES` (a named prepared statement); batch: one `INSERT … SELECT`
 * from the batch's JSON (the raw minimum of the ingest scenario); read: the bench's raw context
 * query (the adapter's flip query over the 24 columns it writes), prepared.
 */
export function ourTableFloor(pool: pg.Pool, raw: RawStore): PeerSystem<Message> {
  return {
    name: "our table, plain SQL",
    writes:
      "our 23 written columns into our table (its indexes and foreign key), one plain INSERT per message, no lock, rule or activity update, no `seq` order guarantee for concurrent writers",
    convert: (m) => m,
    async createConversation(id, userId) {
      await raw.storeConversation(makeConversation(id, userId, "agent-peers"));
    },
    async storeBatch(records) {
      await raw.storeMessages(records);
    },
    async append(record) {
      await pool.query({
        name: "bench_floor_append",
        text: INSERT_MESSAGE,
        values: messageValues(record),
      });
    },
    async lastN(conversationId, n) {
      const read = raw.immediateContextPrepared ?? raw.immediateContext;
      return read(conversationId, n);
    },
    load: (records) => raw.storeMessages(records),
    async close() {},
  };
}
