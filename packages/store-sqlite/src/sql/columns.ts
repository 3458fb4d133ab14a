import type { Message, TurnTrace } from "@message-store/core";
import { lastActivityAt, type StoredConversation } from "@message-store/core/memory";
import type { SqlValue } from "../connection/sqlite-connection.js";

/**
 * How each record is stored: the one place that names a table's columns and how a record fills
 * them. A record lives whole in its `record` column (JSON, read back as it was written); the
 * other columns copy the fields that statements filter, order or join on. The upserts and the
 * column lists are derived from these tables (`statements.ts`); the DDL is frozen migration text
 * (`migrations.ts`), and a test checks that both name the same columns.
 */
export interface Table<R> {
  readonly name: string;
  /** The column a row is upserted on. */
  readonly key: string;
  /** Column name → its value for a record. */
  readonly columns: Readonly<Record<string, (record: R) => SqlValue>>;
}

const flag = (value: boolean): number => (value ? 1 : 0);

/** A conversation; `record` holds it without the store's `lastMessageAt`. */
export const CONVERSATIONS: Table<StoredConversation> = {
  name: "conversations",
  key: "id",
  columns: {
    id: (c) => c.id,
    user_id: (c) => c.userId,
    tenant_id: (c) => c.tenantId,
    title: (c) => c.title,
    updated_at: (c) => c.updatedAt,
    deleted_at: (c) => c.deletedAt,
    last_message_at: (c) => c.lastMessageAt,
    last_activity_at: (c) => lastActivityAt(c),
    record: ({ lastMessageAt: _, ...record }) => JSON.stringify(record),
  },
};

/** A message with its receipt order. */
export const MESSAGES: Table<{ message: Message; sequence: number }> = {
  name: "messages",
  key: "id",
  columns: {
    id: ({ message }) => message.id,
    conversation_id: ({ message }) => message.conversationId,
    sequence: ({ sequence }) => sequence,
    timestamp: ({ message }) => message.timestamp,
    user_id: ({ message }) => message.userId,
    tenant_id: ({ message }) => message.tenantId,
    role: ({ message }) => message.role,
    is_flagged: ({ message }) => flag(message.isFlagged),
    deleted_at: ({ message }) => message.deletedAt,
    embedding_length: ({ message }) => message.embedding?.length ?? null,
    original_content: ({ message }) => message.originalContent,
    record: ({ message }) => JSON.stringify(message),
  },
};

/** A turn trace. */
export const TURN_TRACES: Table<TurnTrace> = {
  name: "turn_traces",
  key: "id",
  columns: {
    id: (t) => t.id,
    message_id: (t) => t.messageId,
    conversation_id: (t) => t.conversationId,
    agent_id: (t) => t.agentId,
    user_id: (t) => t.userId,
    tenant_id: (t) => t.tenantId,
    timestamp: (t) => t.timestamp,
    deleted_at: (t) => t.deletedAt,
    record: (t) => JSON.stringify(t),
  },
};

/** Every table of records, for the checks that compare them with the schema. */
export const RECORD_TABLES = [CONVERSATIONS, MESSAGES, TURN_TRACES] as const;
