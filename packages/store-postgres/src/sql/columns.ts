import type { Conversation, Message, TurnTrace } from "@message-store/core";
import {
  CONVERSATION_FIELDS,
  CONVERSATION_READ_FIELDS,
  MESSAGE_FIELDS,
  type ModelFields,
  TURN_TRACE_FIELDS,
} from "@message-store/core/adapter";
import {
  decodeNullable,
  decodeText,
  encodeNullable,
  encodeText,
  toJsonParam,
} from "../nul-codec.js";

/**
 * How each model field is stored: one column table per model, the single place that names
 * columns and their types. The SELECT lists, the row mapping in both directions, the write
 * statements and the SQL functions' column lists are derived from these tables (see
 * `column-lists.ts`, `row-mapping.ts`, `functions.ts`); a field core adds to a model and this
 * file lacks is a compile error (`satisfies Record<keyof Model, Column>`). The default layout's
 * DDL is frozen migration text (`migrations.ts`); the partitioned layout's tables are derived
 * from these tables (`partitioned-layout.ts`), and a test checks both against them.
 */

/** A column's SQL type and how values cross the driver boundary. */
export interface Codec {
  /** The SQL type, as written in DDL and in `jsonb_to_recordset` definitions. */
  readonly type:
    | "text"
    | "bigint"
    | "integer"
    | "double precision"
    | "boolean"
    | "jsonb"
    | "double precision[]";
  /** `"C"` for ids: they compare by code point, as core's `compareIds` does. */
  readonly collation?: "C";
  readonly nullable: boolean;
  /** Model value → statement parameter (the NUL escape); absent: the value as is. */
  readonly encode?: (value: never) => unknown;
  /** Column value (after `column-types.ts`' parsers) → model value; absent: as is. */
  readonly decode?: (value: never) => unknown;
  /**
   * A non-null `jsonb` column's empty value (`[]`, `{}`): reads select `NULLIF(column, empty)`
   * and `decode` turns the NULL back into a fresh empty value. Most such columns are empty, and
   * a NULL crosses the wire without bytes, a parse or an allocation: 20 messages of mostly empty
   * columns read 19% faster with 18% less client CPU on PostgreSQL 15 (0.162 → 0.131 ms p50,
   * 154 → 126 µs per call, 2,800 interleaved calls; see bench/FINDINGS.md, "#17").
   */
  readonly empty?: "[]" | "{}";
}

/** One stored field: its column name (a plain snake_case identifier) and codec. */
export interface Column extends Codec {
  readonly name: string;
  /** The column's `DEFAULT`, an SQL constant (`false`); a `jsonb` column's is its `empty`. */
  readonly default?: string;
  /** A stored generated column's expression (`GENERATED ALWAYS AS (…) STORED`). */
  readonly generated?: string;
  /** The sequence (in the store's schema) whose `nextval` is the column's default. */
  readonly sequence?: string;
  /** The migration that adds the column, when not version 1 (it adds it to both layouts). */
  readonly since?: number;
}

/** What a column's DDL says beside its type: default, generation, the step that adds it. */
type Ddl = Pick<Column, "default" | "generated" | "sequence" | "since">;

const id = {
  type: "text",
  collation: "C",
  nullable: false,
  encode: encodeText,
  decode: decodeText,
} as const;
const nullableId = {
  ...id,
  nullable: true,
  encode: encodeNullable,
  decode: decodeNullable,
} as const;
const text = { type: "text", nullable: false, encode: encodeText, decode: decodeText } as const;
const nullableText = {
  ...text,
  nullable: true,
  encode: encodeNullable,
  decode: decodeNullable,
} as const;
const bigint = { type: "bigint", nullable: false } as const;
const nullableBigint = { type: "bigint", nullable: true } as const;
const float8 = { type: "double precision", nullable: false } as const;
const boolean = { type: "boolean", nullable: false } as const;
/** Nested data; `jsonb` values come back parsed with the NUL escape undone (`column-types.ts`). */
const jsonb = { type: "jsonb", nullable: false, encode: toJsonParam } as const;
/** A list (`[]` when empty) or an object (`{}` when empty): see `Codec.empty`. */
const jsonbList = {
  ...jsonb,
  empty: "[]",
  decode: (value: unknown[] | null) => value ?? [],
} as const;
const jsonbObject = {
  ...jsonb,
  empty: "{}",
  decode: (value: Record<string, unknown> | null) => value ?? {},
} as const;
const nullableJsonb = {
  type: "jsonb",
  nullable: true,
  encode: (value: unknown) => (value === null ? null : toJsonParam(value)),
} as const;
/** float8, not pgvector's float4 `vector`, so embeddings round-trip exactly. */
const float8Array = { type: "double precision[]", nullable: true } as const;

function column(name: string, codec: Codec, ddl: Ddl = {}): Column {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`column name ${name} is not plain`);
  return { name, ...codec, ...ddl };
}
const isFalse = { default: "false" } as const;

/** `conversations`: `lastActivityAt` is a generated column, read but never written. */
export const CONVERSATION_COLUMNS = {
  id: column("id", id),
  userId: column("user_id", id),
  tenantId: column("tenant_id", nullableId),
  agentId: column("agent_id", nullableId),
  title: column("title", nullableText),
  description: column("description", nullableText),
  status: column("status", text, { default: "'active'::text" }),
  createdAt: column("created_at", bigint),
  updatedAt: column("updated_at", bigint),
  deletedAt: column("deleted_at", nullableBigint),
  tags: column("tags", jsonbList),
  metadata: column("metadata", jsonbObject),
  lastActivityAt: column("last_activity_at", bigint, {
    generated: "GREATEST(updated_at, COALESCE(last_message_at, updated_at))",
  }),
} satisfies Record<keyof Conversation, Column>;

/** `messages`. */
export const MESSAGE_COLUMNS = {
  id: column("id", id),
  conversationId: column("conversation_id", id),
  userId: column("user_id", id),
  tenantId: column("tenant_id", nullableId),
  role: column("role", text),
  originalContent: column("original_content", text),
  enhancedMessage: column("enhanced_message", nullableText),
  explicitContext: column("explicit_context", nullableText),
  episodeId: column("episode_id", nullableId),
  isFlagged: column("is_flagged", boolean, isFalse),
  isContinuation: column("is_continuation", boolean, isFalse),
  invokedFlows: column("invoked_flows", jsonbList),
  invokedTools: column("invoked_tools", jsonbList),
  reasoningSteps: column("reasoning_steps", jsonbList),
  entities: column("entities", jsonbList),
  intent: column("intent", nullableText),
  sentiment: column("sentiment", nullableText),
  sentimentScore: column("sentiment_score", float8, { default: "0" }),
  timestamp: column("timestamp", bigint),
  toolCalls: column("tool_calls", jsonbList),
  toolCallId: column("tool_call_id", nullableId),
  toolName: column("tool_name", nullableText),
  toolArguments: column("tool_arguments", nullableJsonb),
  tags: column("tags", jsonbList),
  metadata: column("metadata", jsonbObject),
  traceId: column("trace_id", nullableId),
  spanId: column("span_id", nullableId),
  embedding: column("embedding", float8Array),
  deletedAt: column("deleted_at", nullableBigint),
} satisfies Record<keyof Message, Column>;

/** `turn_traces`. */
export const TURN_TRACE_COLUMNS = {
  id: column("id", id),
  messageId: column("message_id", id),
  conversationId: column("conversation_id", id),
  agentId: column("agent_id", id),
  userId: column("user_id", nullableId),
  tenantId: column("tenant_id", nullableId),
  timestamp: column("timestamp", bigint),
  totalTokens: column("total_tokens", bigint),
  totalLatencyMs: column("total_latency_ms", float8),
  llmCalls: column("llm_calls", jsonbList),
  taskEmissions: column("task_emissions", jsonbList),
  toolTraces: column("tool_traces", jsonbList),
  slotEvents: column("slot_events", jsonbList),
  flowEvents: column("flow_events", jsonbList),
  errors: column("errors", jsonbList),
  reasoningSteps: column("reasoning_steps", jsonbList),
  metadata: column("metadata", jsonbObject),
  deletedAt: column("deleted_at", nullableBigint),
} satisfies Record<keyof TurnTrace, Column>;

/** Columns the store keeps beside the model's, by table. */
export const STORE_COLUMNS = {
  conversations: [column("last_message_at", nullableBigint)],
  messages: [
    column("seq", bigint, { sequence: "messages_seq" }),
    // Generated from `embedding` by migration 2, for search.
    column("embedding_dims", { type: "integer", nullable: true }, { since: 2 }),
    column("embedding_norm", { type: "double precision", nullable: true }, { since: 2 }),
  ],
  turn_traces: [],
} as const satisfies Record<string, readonly Column[]>;

/** A model field with its column. */
export interface StoredField {
  /** The model's key: also the key of the field in the JSON a batch travels as. */
  readonly key: string;
  readonly column: Column;
}

/** The stored fields of `fields` (core's table, whose key order is the model's) in that order. */
function inModelOrder(
  fields: ModelFields,
  columns: Record<string, Column>,
): readonly StoredField[] {
  return Object.keys(fields).map((key) => {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(key)) throw new Error(`field name ${key} is not plain`);
    return { key, column: columns[key]! };
  });
}

/** What `storeConversation` writes (every field but the generated `lastActivityAt`). */
export const CONVERSATION_WRITE = inModelOrder(CONVERSATION_FIELDS, CONVERSATION_COLUMNS);
/** What a conversation read returns. */
export const CONVERSATION_READ = inModelOrder(CONVERSATION_READ_FIELDS, CONVERSATION_COLUMNS);
/** A message, read and written. */
export const MESSAGE = inModelOrder(MESSAGE_FIELDS, MESSAGE_COLUMNS);
/** A turn trace, read and written. */
export const TURN_TRACE = inModelOrder(TURN_TRACE_FIELDS, TURN_TRACE_COLUMNS);
