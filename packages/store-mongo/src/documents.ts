import { randomUUID } from "node:crypto";
import {
  type Conversation,
  type ConversationRecord,
  ConversationSchema,
  CorruptDataError,
  type Message,
  MessageSchema,
  type TurnTrace,
  TurnTraceSchema,
} from "@message-store/core";
import {
  CONVERSATION_FIELDS,
  CONVERSATION_READ_FIELDS,
  canonicalConversation,
  canonicalMessage,
  canonicalTurnTrace,
  MESSAGE_FIELDS,
  type SequencedMessage,
  TOOL_CALL_FIELDS,
  TOOL_TRACE_FIELDS,
  TURN_TRACE_FIELDS,
} from "@message-store/core/adapter";
import { idKey } from "./id-key.js";
import { KeyCodecError } from "./key-codec.js";
import {
  decodeFields,
  each,
  encodeFields,
  items,
  json,
  type StoredField,
  storedFields,
  without,
} from "./stored-fields.js";

/** The conversation fields only the store writes. */
type StoreOwned = "_id" | "lastMessageAt" | "lastActivityAt" | "lastSequence";

/**
 * A conversation document: the record's fields with `_id = id`, plus adapter fields. `idKey`
 * orders ids by code point on any server (see `idKey`); `lastMessageAt` only moves forward on
 * message writes; `lastActivityAt` is always `max(updatedAt, lastMessageAt ?? updatedAt)`, stored
 * so an index can serve the list order; `lastSequence` is the last message sequence number handed
 * out in this conversation. Written only when needed (absent before): `stampFloor`, the greatest
 * stamp a message's own soft delete announced here, which the conversation's soft delete stamps
 * above (`soft-delete.ts`); `confirmedWrites`, counting the live writes that confirmed the
 * conversation live after landing (`live-confirmation.ts`).
 */
export type ConversationDoc = Omit<ConversationRecord, "id" | "metadata"> & {
  _id: string;
  idKey: string;
  metadata: Record<string, unknown>;
  lastMessageAt: number | null;
  lastActivityAt: number;
  lastSequence: number;
  stampFloor?: number | null;
  confirmedWrites?: number;
  /**
   * Set by the first checkpoint write of the thread (`write-checkpoints.ts`), so that the deletes
   * of conversations without checkpoints send no command for them.
   */
  hasCheckpoints?: boolean;
  /**
   * Which life of the id this document is: a random value set when the document is inserted
   * ({@link newIncarnation}; by the first checkpoint write for a document inserted without one).
   * Checkpoint documents carry the incarnation they were written for, and reads join them on it:
   * a put that lost a race with the conversation's delete (no transactions) leaves documents
   * that no later conversation with that id reads.
   */
  incarnation?: string;
};

/** A new conversation incarnation (see `ConversationDoc.incarnation`). */
export const newIncarnation = (): string => randomUUID();

/**
 * A message document: the model's fields with `_id = id`, plus its receipt order `sequence` and,
 * while it has no embedding, `pendingKey` (its `idKey`, the embedding queue's order).
 */
export type MessageDoc = Omit<Message, "id" | "metadata" | "toolCalls"> & {
  _id: string;
  metadata: Record<string, unknown>;
  toolCalls: Record<string, unknown>[];
  sequence: number;
  pendingKey?: string;
};

/** A turn trace document: the model's fields with `_id = id`, plus `idKey` (see `idKey`). */
export type TurnTraceDoc = Omit<
  TurnTrace,
  "id" | "toolTraces" | "slotEvents" | "flowEvents" | "errors" | "metadata"
> & {
  _id: string;
  idKey: string;
  toolTraces: Record<string, unknown>[];
  slotEvents: unknown[];
  flowEvents: unknown[];
  errors: unknown[];
  metadata: Record<string, unknown>;
};

// Document levels of the free-form JSON subtrees (the document itself is level 1).
const TOP = 2;
const IN_ARRAY_ITEM = 4;
const EVENT = json(TOP + 1);

// Each model's document layout, from core's field table: a field added to a model is stored and
// read back without a change here. Only the free-form JSON needs coding (escaped keys).
const CONVERSATION_CODECS = { metadata: json(TOP) };
const CONVERSATION = storedFields(CONVERSATION_READ_FIELDS, CONVERSATION_CODECS);
const MESSAGE = storedFields(MESSAGE_FIELDS, {
  toolCalls: items(TOOL_CALL_FIELDS, {
    arguments: json(IN_ARRAY_ITEM),
    result: json(IN_ARRAY_ITEM),
  }),
  toolArguments: json(TOP),
  metadata: json(TOP),
});
const TRACE = storedFields(TURN_TRACE_FIELDS, {
  toolTraces: items(TOOL_TRACE_FIELDS, {
    input: json(IN_ARRAY_ITEM),
    finalData: json(IN_ARRAY_ITEM),
  }),
  slotEvents: each(EVENT),
  flowEvents: each(EVENT),
  errors: each(EVENT),
  metadata: json(TOP),
});

// What a write sets: the record's fields (a conversation's `lastActivityAt` is the store's)
// except `id`, which the filter gives as `_id`, and a message's `conversationId`, also filtered on.
const CONVERSATION_SET = without(storedFields(CONVERSATION_FIELDS, CONVERSATION_CODECS), "id");
const MESSAGE_SET = without(MESSAGE, "id", "conversationId");
const TRACE_SET = without(TRACE, "id");

/** The `$set` body of a conversation upsert: `idKey` and every record field except `id`. */
export function conversationFields(c: ConversationRecord): Omit<ConversationDoc, StoreOwned> {
  return encodeFields(c, CONVERSATION_SET, { idKey: idKey(c.id) }) as Omit<
    ConversationDoc,
    StoreOwned
  >;
}

/** The `$set` body of a message upsert: every model field except `id` and `conversationId`. */
export function messageFields(m: Message): Omit<MessageDoc, "_id" | "conversationId" | "sequence"> {
  return encodeFields(m, MESSAGE_SET) as Omit<MessageDoc, "_id" | "conversationId" | "sequence">;
}

/** The replacement document of a trace upsert (without `_id`, which the filter gives). */
export function traceFields(t: TurnTrace): Omit<TurnTraceDoc, "_id"> {
  return encodeFields(t, TRACE_SET, { idKey: idKey(t.id) }) as Omit<TurnTraceDoc, "_id">;
}

type Raw = Record<string, unknown>;

function corrupt(collection: string, doc: Raw, why: string): CorruptDataError {
  const id = typeof doc._id === "string" ? doc._id : String(doc._id);
  const location = `${collection}/${id}`;
  return new CorruptDataError(`stored document ${location} is unreadable: ${why}`, location);
}

/** The part of a zod schema used here: structural, so it fits core's schemas whatever copy of zod core has. */
interface Schema<T> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

/**
 * The model stored in `doc`, validated: decoded by its layout in schema order, then core's
 * structural fast path (which returns it as it is), and the schema (which names the problem, or
 * fills a default the fast path left to it) only when that cannot tell.
 */
function decodeWith<T>(
  schema: Schema<T>,
  fast: (value: unknown) => T | undefined,
  collection: string,
  doc: Raw,
  fields: readonly StoredField[],
): T {
  let candidate: unknown;
  try {
    candidate = decodeFields(doc, fields);
  } catch (error) {
    if (error instanceof KeyCodecError) throw corrupt(collection, doc, error.message);
    throw error;
  }
  const canonical = fast(candidate);
  if (canonical !== undefined) return canonical;
  const parsed = schema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
  throw corrupt(collection, doc, `fails the model${where}: ${issue?.message ?? "invalid"}`);
}

/** A stored conversation as the model, validated. */
export function toConversation(doc: Raw): Conversation {
  return decodeWith(ConversationSchema, canonicalConversation, "conversations", doc, CONVERSATION);
}

/** A stored message as the model (validated) with its sequence. */
export function toSequencedMessage(doc: Raw): SequencedMessage {
  const message = decodeWith(MessageSchema, canonicalMessage, "messages", doc, MESSAGE);
  if (!Number.isSafeInteger(doc.sequence)) {
    throw corrupt("messages", doc, "sequence is not an integer");
  }
  return { message, sequence: doc.sequence as number };
}

/** A stored message as the model, validated. */
export function toMessage(doc: Raw): Message {
  return toSequencedMessage(doc).message;
}

/** A stored trace as the model, validated. */
export function toTurnTrace(doc: Raw): TurnTrace {
  return decodeWith(TurnTraceSchema, canonicalTurnTrace, "turn_traces", doc, TRACE);
}
