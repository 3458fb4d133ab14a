import type { Conversation, ConversationRecord, Message, TurnTrace } from "@message-store/core";
import type { SequencedMessage } from "@message-store/core/adapter";

/*
 * How a record lives in its Redis hash. A field the scripts check or change (owners, parent,
 * `deletedAt`, flag, timestamp, text, embedding) is a hash field of its own, in exactly one place;
 * the rest of the record is one JSON string (`json`) the scripts never decode: Lua's cjson would
 * round numbers to 14 digits. A read returns the row below, and the record is the JSON with the
 * hash fields put back. Absent values are stored as ''.
 */

/** The hash fields of a conversation a read returns, in order (`lma`: newest message timestamp). */
export const CONVERSATION_ROW = ["json", "user", "tenant", "del", "upd", "lma"] as const;
/** The hash fields of a message a read returns, in order (`seq`: the receipt sequence). */
export const MESSAGE_ROW = [
  "json",
  "conv",
  "user",
  "tenant",
  "ts",
  "seq",
  "flag",
  "del",
  "content",
  "emb",
] as const;
/** The hash fields of a trace a read returns, in order. */
export const TRACE_ROW = ["json", "msg", "conv", "user", "tenant", "del"] as const;

/** A row as the scripts return it (a Lua number arrives as a number). */
export type Row = readonly (string | number | null)[];

const text = (v: string | null): string => v ?? "";
const orNull = (v: string | number | null | undefined): string | null =>
  v === "" || v == null ? null : String(v);
const stampOf = (v: string | number | null | undefined): number | null =>
  v === "" || v == null ? null : Number(v);
const stampArg = (v: number | null): string => (v === null ? "" : String(v));

/** A conversation's script arguments, in `CONVERSATION_ROW` order (without `lma`). */
export function conversationArgs(c: ConversationRecord): string[] {
  const { userId, tenantId, deletedAt, updatedAt, ...rest } = c;
  return [JSON.stringify(rest), userId, text(tenantId), stampArg(deletedAt), String(updatedAt)];
}

export function conversationOf(row: Row): Conversation {
  const [json, user, tenant, del, upd, lma] = row;
  const updatedAt = Number(upd);
  return {
    ...JSON.parse(String(json)),
    userId: String(user),
    tenantId: orNull(tenant),
    deletedAt: stampOf(del),
    updatedAt,
    lastActivityAt: Math.max(updatedAt, stampOf(lma) ?? updatedAt),
  };
}

/** A message's script arguments, in `MESSAGE_ROW` order (without `seq`). */
export function messageArgs(m: Message): string[] {
  const { conversationId, userId, tenantId, timestamp, isFlagged, deletedAt, ...rest } = m;
  const { originalContent, embedding, ...json } = rest;
  return [
    JSON.stringify(json),
    conversationId,
    userId,
    text(tenantId),
    String(timestamp),
    isFlagged ? "1" : "0",
    stampArg(deletedAt),
    originalContent,
    embedding === null ? "" : JSON.stringify(embedding),
  ];
}

export function messageOf(row: Row): SequencedMessage {
  const [json, conv, user, tenant, ts, seq, flag, del, content, emb] = row;
  const message: Message = {
    ...JSON.parse(String(json)),
    conversationId: String(conv),
    userId: String(user),
    tenantId: orNull(tenant),
    timestamp: Number(ts),
    isFlagged: flag === "1",
    deletedAt: stampOf(del),
    originalContent: String(content),
    embedding: emb === "" || emb == null ? null : JSON.parse(String(emb)),
  };
  return { message, sequence: Number(seq) };
}

/** A trace's script arguments, in `TRACE_ROW` order. */
export function traceArgs(t: TurnTrace): string[] {
  const { messageId, conversationId, userId, tenantId, deletedAt, ...json } = t;
  return [
    JSON.stringify(json),
    messageId,
    conversationId,
    text(userId),
    text(tenantId),
    stampArg(deletedAt),
  ];
}

export function traceOf(row: Row): TurnTrace {
  const [json, msg, conv, user, tenant, del] = row;
  return {
    ...JSON.parse(String(json)),
    messageId: String(msg),
    conversationId: String(conv),
    userId: orNull(user),
    tenantId: orNull(tenant),
    deletedAt: stampOf(del),
  };
}
