import {
  type Conversation,
  type ConversationRecord,
  ConversationSchema,
  CorruptDataError,
  type DeletedCounts,
  type Message,
  MessageSchema,
  type TurnTrace,
  TurnTraceSchema,
  ValidationError,
} from "@message-store/core";
import {
  canonicalConversation,
  canonicalMessage,
  canonicalTurnTrace,
  parseInput,
  type SequencedMessage,
  type UsageSums,
} from "@message-store/core/adapter";
import { jsonbForm } from "./jsonb-form.js";
import { toJsonParam } from "./nul-codec.js";
import {
  CONVERSATION_READ,
  CONVERSATION_WRITE,
  MESSAGE,
  type StoredField,
  TURN_TRACE,
} from "./sql/columns.js";

/**
 * Row ↔ model mapping, derived from the column tables (`sql/columns.ts`). Reads select every
 * column under its model field's name (`selectList`), so a row already has the model's shape:
 * `bigint` columns arrive as numbers (see `column-types.ts`), `jsonb` as parsed values with the
 * NUL escape undone, and text columns are unescaped here, in place and only where needed. The row
 * object itself then becomes the model, with no copy: building a new object field by field from
 * a table cost ~1 µs per row, as much as the rest of the mapping (measured on 500 messages). Only
 * transcript pages and search hits pay one copy, to drop their extra column (`seq`, `score`).
 *
 * Every row read is checked against core's model (a structural check first, the schema when that
 * cannot tell), so data edited into an invalid shape surfaces as `CorruptDataError` naming the
 * table and id instead of leaking out.
 */

type Row = Record<string, unknown>;
type Convert = (value: unknown) => unknown;

/** Undoes the codecs of `fields` on a row keyed by field name, in place. */
function rowDecoder(fields: readonly StoredField[]): (row: Row) => Row {
  const decoded = fields.filter((f) => f.column.decode !== undefined);
  const keys = decoded.map((f) => f.key);
  const decoders = decoded.map((f) => f.column.decode as Convert);
  return (row) => {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const value = row[key];
      const plain = decoders[i]!(value);
      // Nearly always the same string: writing only on a change keeps the row's shape.
      if (plain !== value) row[key] = plain;
    }
    return row;
  };
}

/** A record → positional parameters converter for `fields` (`$1` is the first field). */
export function paramWriter<T>(fields: readonly StoredField[]): (record: T) => unknown[] {
  const keys = fields.map((f) => f.key);
  const encoders = fields.map((f) => f.column.encode as Convert | undefined);
  return (record) => {
    const values = new Array<unknown>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const value = (record as Row)[keys[i]!];
      const encode = encoders[i];
      values[i] = encode === undefined ? value : encode(value);
    }
    return values;
  };
}

/**
 * The row as the model: from core's cheap structural check (`canonicalMessage` & co.) when it can
 * tell (it then returns exactly what the schema would), otherwise through the schema, which fills
 * defaults of hand-written rows or rejects the row as `CorruptDataError`.
 */
function modelReader<T>(
  fields: readonly StoredField[],
  canonical: (value: Row) => T | undefined,
  schema: Parameters<typeof parseInput>[0],
): (row: Row, table: string) => T {
  const read = rowDecoder(fields);
  return (row, table) => {
    const value = read(row);
    const fast = canonical(value);
    if (fast !== undefined) return fast;
    try {
      return parseInput(schema, value, "row") as T;
    } catch (error) {
      const location = `${table} id=${JSON.stringify(value.id)}`;
      const why =
        error instanceof ValidationError ? error.message.replace(/^.*?invalid row/, "") : "";
      throw new CorruptDataError(`stored row ${location} is invalid${why}`, location, {
        cause: error,
      });
    }
  };
}

/** A `conversations` row as the model. */
export const toConversation = modelReader<Conversation>(
  CONVERSATION_READ,
  canonicalConversation,
  ConversationSchema,
);

/** A `messages` row as the model. */
export const toMessage = modelReader<Message>(MESSAGE, canonicalMessage, MessageSchema);

/** A `turn_traces` row as the model. */
export const toTurnTrace = modelReader<TurnTrace>(TURN_TRACE, canonicalTurnTrace, TurnTraceSchema);

/** A `messages` row with its receipt order (selected as `seq`). */
export function toSequencedMessage(row: Row, table: string): SequencedMessage {
  const { seq, ...message } = row;
  return { message: toMessage(message, table), sequence: seq as number };
}

/**
 * A written record as a read will return it: its `jsonb` fields in jsonb's form (see
 * `jsonbForm`), then as the model (nested model objects back in schema order, as reads have
 * them). The record itself when nothing differs, as nearly always.
 */
function asReadBack<T>(
  fields: readonly StoredField[],
  canonical: (value: Row) => T | undefined,
  schema: Parameters<typeof parseInput>[0],
): (record: T) => T {
  const keys = fields.filter((f) => f.column.type === "jsonb").map((f) => f.key);
  return (record) => {
    let formed: Row | null = null;
    for (const key of keys) {
      const value = (record as Row)[key];
      const form = jsonbForm(value);
      if (Object.is(form, value)) continue;
      formed ??= { ...(record as Row) };
      formed[key] = form;
    }
    if (formed === null) return record;
    return canonical(formed) ?? (parseInput(schema, formed, "stored record") as T);
  };
}

const messageAsRead = asReadBack<Message>(MESSAGE, canonicalMessage, MessageSchema);
const traceAsRead = asReadBack<TurnTrace>(TURN_TRACE, canonicalTurnTrace, TurnTraceSchema);

/** Parameters of the conversation upsert, in column order. */
export const conversationParams = paramWriter<ConversationRecord>(CONVERSATION_WRITE);

/** Parameters of `ms_put_turn_trace`, in column order. */
export const traceParams = paramWriter<TurnTrace>(TURN_TRACE);

/**
 * The parameter of the batch functions (`ms_write_messages`,
 * `ms_put_turn_traces`): the records as the model's JSON, which the function reads with
 * `jsonb_to_recordset` keyed by field name (the NUL escape is applied to the whole text).
 */
export function batchParam(batch: readonly (Message | TurnTrace)[]): string {
  // Copied with push: core's array may be holey (made by map), and JSON.stringify serialises a
  // holey array ~50% slower (1.6 vs 1.0 ms for 500 messages).
  const rows: (Message | TurnTrace)[] = [];
  for (const r of batch) rows.push(r);
  return toJsonParam(rows);
}

/** One row of the usage aggregate as core's raw sums (`numeric` sums arrive as text). */
export function toUsageSums(row: Row): UsageSums {
  return {
    bucketStart: Number(row.bucket_start),
    turns: Number(row.turns),
    totalTokens: Number(row.total_tokens),
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    costUsd: Number(row.cost_usd),
    latencySumMs: Number(row.latency_sum_ms),
    maxLatencyMs: Number(row.max_latency_ms),
    turnsWithErrors: Number(row.turns_with_errors),
  };
}

/**
 * What the message functions report per stored row: `[id, tenantId, embedding is null,
 * timestamp]`.
 */
export type StoredFact = readonly [string, string | null, boolean, number];

/**
 * The batch as stored: each message with its conversation's `tenantId`, its stored timestamp (a
 * session write chooses it), where the function cleared a stale embedding, `embedding: null`,
 * and its JSON as jsonb gives it back (see `asReadBack`). Returns the same object where nothing
 * differs.
 */
export function asStored(batch: readonly Message[], facts: unknown): Message[] {
  const byId = new Map<string, StoredFact>();
  for (const f of (facts ?? []) as StoredFact[]) byId.set(f[0], f);
  return batch.map((m) => {
    const f = byId.get(m.id);
    if (!f) return messageAsRead(m);
    const [, tenantId, noEmbedding, timestamp] = f;
    const cleared = noEmbedding && m.embedding !== null;
    return messageAsRead(
      m.tenantId === tenantId && !cleared && m.timestamp === timestamp
        ? m
        : { ...m, tenantId, timestamp, embedding: cleared ? null : m.embedding },
    );
  });
}

/** What `ms_put_turn_traces` reports per stored trace: `[id, userId, tenantId]`. */
type StoredOwners = readonly [string, string | null, string | null];

/**
 * The traces as stored, in input order: `userId`/`tenantId` filled from the conversation, as the
 * function reports them (jsonb arrives with the NUL escape already undone, `column-types.ts`),
 * and their JSON as jsonb gives it back (see `asReadBack`).
 */
export function asStoredTraces(traces: readonly TurnTrace[], facts: unknown): TurnTrace[] {
  const byId = new Map<string, StoredOwners>();
  for (const f of (facts ?? []) as StoredOwners[]) byId.set(f[0], f);
  return traces.map((t) => {
    const [, userId, tenantId] = byId.get(t.id) ?? [t.id, t.userId, t.tenantId];
    return traceAsRead(
      userId === t.userId && tenantId === t.tenantId ? t : { ...t, userId, tenantId },
    );
  });
}

/** A bulk delete's counts row as core's counts. */
export function toDeletedCounts(row: Row | undefined): DeletedCounts {
  return {
    conversations: Number(row?.deleted_conversations ?? 0),
    messages: Number(row?.deleted_messages ?? 0),
    turnTraces: Number(row?.deleted_turn_traces ?? 0),
  };
}
