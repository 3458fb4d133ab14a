import {
  type Conversation,
  type ConversationRecord,
  ConversationSchema,
  CorruptDataError,
  canonicalConversation,
  canonicalMessage,
  canonicalTurnTrace,
  type Json,
  type Message,
  MessageSchema,
  type SequencedMessage,
  type TurnTrace,
  TurnTraceSchema,
} from "@message-store/core";
import { ADAPTER } from "./errors.js";
import { idKey } from "./id-key.js";
import { decodeJson, encodeJson, KeyCodecError } from "./key-codec.js";

/**
 * A conversation document: the model's fields with `_id = id`, plus four adapter fields.
 * `idKey` orders ids by code point on any server (see `idKey`); `lastMessageAt` only moves
 * forward on message writes; `lastActivityAt` is always `max(updatedAt, lastMessageAt ??
 * updatedAt)`, stored so an index can serve the list order; `lastSequence` is the last message
 * sequence number handed out in this conversation.
 */
export interface ConversationDoc {
  _id: string;
  idKey: string;
  userId: string;
  agentId: string | null;
  title: string | null;
  createdAt: number;
  updatedAt: number;
  tags: string[];
  metadata: Record<string, unknown>;
  lastMessageAt: number | null;
  lastActivityAt: number;
  lastSequence: number;
}

/** A message document: the model's fields with `_id = id`, plus its receipt order `sequence`. */
export type MessageDoc = Omit<Message, "id" | "metadata" | "toolCalls"> & {
  _id: string;
  metadata: Record<string, unknown>;
  toolCalls: Record<string, unknown>[];
  sequence: number;
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

const encodeObject = (value: Record<string, Json>, depth: number) =>
  encodeJson(value, depth) as Record<string, unknown>;

/** The `$set` body of a conversation upsert: every model field except `id`, and `idKey`. */
export function conversationFields(c: ConversationRecord) {
  return {
    idKey: idKey(c.id),
    userId: c.userId,
    agentId: c.agentId,
    title: c.title,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    tags: c.tags,
    metadata: encodeObject(c.metadata, TOP),
  };
}

/** The `$set` body of a message upsert: every model field except `id` and `conversationId`. */
export function messageFields(m: Message): Omit<MessageDoc, "_id" | "conversationId" | "sequence"> {
  const { id: _id, conversationId: _c, metadata, toolCalls, ...plain } = m;
  return {
    ...plain,
    toolCalls: toolCalls.map((call) => ({
      ...call,
      arguments: encodeObject(call.arguments, IN_ARRAY_ITEM),
      result: encodeJson(call.result, IN_ARRAY_ITEM),
    })),
    metadata: encodeObject(metadata, TOP),
  };
}

/** The replacement document of a trace upsert (without `_id`, which the filter gives). */
export function traceFields(t: TurnTrace): Omit<TurnTraceDoc, "_id"> {
  const { id: _id, toolTraces, slotEvents, flowEvents, errors, metadata, ...plain } = t;
  const events = (list: Record<string, Json>[]) => list.map((e) => encodeJson(e, TOP + 1));
  return {
    idKey: idKey(t.id),
    ...plain,
    toolTraces: toolTraces.map((tool) => ({
      ...tool,
      finalData: encodeJson(tool.finalData, IN_ARRAY_ITEM),
    })),
    slotEvents: events(slotEvents),
    flowEvents: events(flowEvents),
    errors: events(errors),
    metadata: encodeObject(metadata, TOP),
  };
}

type Raw = Record<string, unknown>;

function corrupt(collection: string, doc: Raw, why: string): CorruptDataError {
  const id = typeof doc._id === "string" ? doc._id : String(doc._id);
  const location = `${collection}/${id}`;
  return new CorruptDataError(`stored document ${location} is unreadable: ${why}`, location, {
    adapter: ADAPTER,
  });
}

/** The part of a zod schema used here (core's schemas; zod itself is not a dependency). */
interface Schema<T> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

/**
 * Builds the model from `doc` and validates it: core's structural fast path first, the schema
 * (which names the problem, or fills a default the fast path left to it) only when that cannot
 * tell.
 */
function decodeWith<T>(
  schema: Schema<T>,
  fast: (value: unknown) => T | undefined,
  collection: string,
  doc: Raw,
  build: () => unknown,
): T {
  let candidate: unknown;
  try {
    candidate = build();
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

const each = (value: unknown, f: (item: Raw) => unknown): unknown =>
  Array.isArray(value) ? value.map((item) => (isRecord(item) ? f(item) : item)) : value;

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A stored conversation as the model, validated. */
export function toConversation(doc: Raw): Conversation {
  return decodeWith(ConversationSchema, canonicalConversation, "conversations", doc, () => ({
    id: doc._id,
    userId: doc.userId,
    agentId: doc.agentId,
    title: doc.title,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    tags: doc.tags,
    metadata: decodeJson(doc.metadata),
    lastActivityAt: doc.lastActivityAt,
  }));
}

const MESSAGE_KEYS = Object.keys(MessageSchema.shape);

/** A stored message as the model (validated) with its sequence. */
export function toSequencedMessage(doc: Raw): SequencedMessage {
  const message = decodeWith(MessageSchema, canonicalMessage, "messages", doc, () => {
    // Built in schema order, so that the fast path can return it as it is.
    const m: Raw = {};
    for (const k of MESSAGE_KEYS) {
      if (k === "id") m.id = doc._id;
      else if (k === "metadata") m.metadata = decodeJson(doc.metadata);
      else if (k === "toolCalls") {
        m.toolCalls = each(doc.toolCalls, (call) => ({
          ...call,
          arguments: decodeJson(call.arguments),
          result: decodeJson(call.result),
        }));
      } else if (k in doc) m[k] = doc[k];
    }
    return m;
  });
  if (!Number.isSafeInteger(doc.sequence)) {
    throw corrupt("messages", doc, "sequence is not an integer");
  }
  return { message, sequence: doc.sequence as number };
}

/** A stored message as the model, validated. */
export function toMessage(doc: Raw): Message {
  return toSequencedMessage(doc).message;
}

const TRACE_KEYS = Object.keys(TurnTraceSchema.shape);
const EVENT_KEYS = new Set(["slotEvents", "flowEvents", "errors"]);

/** A stored trace as the model, validated. */
export function toTurnTrace(doc: Raw): TurnTrace {
  return decodeWith(TurnTraceSchema, canonicalTurnTrace, "turn_traces", doc, () => {
    // Built in schema order, so that the fast path can return it as it is.
    const t: Raw = {};
    for (const k of TRACE_KEYS) {
      const value = doc[k];
      if (k === "id") t.id = doc._id;
      else if (k === "metadata") t.metadata = decodeJson(value);
      else if (k === "toolTraces") {
        t.toolTraces = each(value, (tool) => ({ ...tool, finalData: decodeJson(tool.finalData) }));
      } else if (EVENT_KEYS.has(k)) {
        t[k] = Array.isArray(value) ? value.map(decodeJson) : value;
      } else if (k in doc) t[k] = value;
    }
    return t;
  });
}
