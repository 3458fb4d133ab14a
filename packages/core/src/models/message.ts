import { z } from "zod";
import { canonicalObject, is, listOf, orNull, textList } from "../canonical/canonical-object.js";
import { isId, isJson, isJsonObject, isNonEmptyText, isText } from "../canonical/json-checks.js";
import { JsonObjectSchema, JsonSchema } from "./json.js";
import { fieldsOf, optional, required, shapeOf } from "./model-field.js";
import {
  FiniteSchema,
  IdSchema,
  StringListSchema,
  TextSchema,
  TimestampSchema,
} from "./primitives.js";

export const MessageRoleSchema = z.enum([
  "user",
  "assistant",
  "colleague_assistant",
  "system",
  "tool",
]);
export type MessageRole = z.output<typeof MessageRoleSchema>;

const ROLES = new Set<unknown>(MessageRoleSchema.options);
const MAX_EMBEDDING = 65_536;
const text = is(isText);
const id = is(isId);
const isBoolean = is((v) => typeof v === "boolean");
const isTimestamp = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const none = () => null;
const emptyList = () => [];

/** The fields of an {@link Entity}, in order. */
export const ENTITY_FIELDS = {
  name: required(TextSchema.min(1, "entity name must not be empty"), is(isNonEmptyText)),
  attributes: optional(StringListSchema, textList, emptyList),
};
export const EntitySchema = z.strictObject(shapeOf(ENTITY_FIELDS));
export type EntityInput = z.input<typeof EntitySchema>;
export type Entity = z.output<typeof EntitySchema>;
const ENTITY = fieldsOf(ENTITY_FIELDS);

/** The fields of a {@link ToolCall}, in order. */
export const TOOL_CALL_FIELDS = {
  toolCallId: required(IdSchema, id),
  toolName: required(TextSchema.min(1), is(isNonEmptyText)),
  arguments: optional(JsonObjectSchema, is(isJsonObject), () => ({})),
  result: optional(
    JsonSchema.nullable(),
    is((v) => isJson(v, 0)),
    none,
  ),
};
export const ToolCallSchema = z.strictObject(shapeOf(TOOL_CALL_FIELDS));
export type ToolCallInput = z.input<typeof ToolCallSchema>;
export type ToolCall = z.output<typeof ToolCallSchema>;
const TOOL_CALL = fieldsOf(TOOL_CALL_FIELDS);

/** An embedding vector: finite numbers, at least one. */
export const EmbeddingSchema = z
  .array(FiniteSchema)
  .min(1)
  .max(MAX_EMBEDDING)
  // -0 cannot survive every backend's text protocol; normalise it so all adapters agree.
  .transform((v) => (v.some((x) => Object.is(x, -0)) ? v.map((x) => x + 0) : v));

/** `EmbeddingSchema`'s rules as a structural check: `-0` becomes `0`, as the schema does. */
const embedding = (v: unknown, copy: boolean) => {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_EMBEDDING) return undefined;
  let negativeZero = false;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!Number.isFinite(x)) return undefined;
    if (x === 0 && Object.is(x, -0)) negativeZero = true;
  }
  return negativeZero || copy ? v.map((x: number) => x + 0) : v;
};

/**
 * The fields of a {@link Message}, in order: the one declaration the schema, the canonical check
 * and every adapter's storage layout are derived from.
 */
export const MESSAGE_FIELDS = {
  id: required(IdSchema, id),
  conversationId: required(IdSchema, id),
  /** Must equal the conversation's `userId` (`IntegrityError` otherwise). */
  userId: required(IdSchema, id),
  /** The conversation's tenant: `null` on input is filled from it, another value is an `IntegrityError`. */
  tenantId: optional(IdSchema.nullable(), orNull(id), none),
  role: required(
    MessageRoleSchema,
    is((v) => ROLES.has(v)),
  ),
  originalContent: required(TextSchema, text),
  enhancedMessage: optional(TextSchema.nullable(), orNull(text), none),
  explicitContext: optional(TextSchema.nullable(), orNull(text), none),
  episodeId: optional(IdSchema.nullable(), orNull(id), none),
  isFlagged: optional(z.boolean(), isBoolean, () => false),
  isContinuation: optional(z.boolean(), isBoolean, () => false),
  invokedFlows: optional(StringListSchema, textList, emptyList),
  invokedTools: optional(StringListSchema, textList, emptyList),
  reasoningSteps: optional(StringListSchema, textList, emptyList),
  entities: optional(
    z.array(EntitySchema),
    listOf((v, copy) => canonicalObject(v, ENTITY, copy)),
    emptyList,
  ),
  intent: optional(TextSchema.nullable(), orNull(text), none),
  sentiment: optional(TextSchema.nullable(), orNull(text), none),
  sentimentScore: optional(
    z.number().min(-1).max(1),
    is((v) => Number.isFinite(v) && (v as number) >= -1 && (v as number) <= 1),
    () => 0,
  ),
  timestamp: required(TimestampSchema, is(isTimestamp)),
  toolCalls: optional(
    z.array(ToolCallSchema),
    listOf((v, copy) => canonicalObject(v, TOOL_CALL, copy)),
    emptyList,
  ),
  toolCallId: optional(IdSchema.nullable(), orNull(id), none),
  toolName: optional(TextSchema.nullable(), orNull(text), none),
  /** A tool message: the arguments of the call it answers. */
  toolArguments: optional(JsonObjectSchema.nullable(), orNull(is(isJsonObject)), none),
  tags: optional(StringListSchema, textList, emptyList),
  metadata: optional(JsonObjectSchema, is(isJsonObject), () => ({})),
  /** OpenTelemetry trace id of the span that produced the message, for correlation. */
  traceId: optional(IdSchema.nullable(), orNull(id), none),
  /** OpenTelemetry span id. */
  spanId: optional(IdSchema.nullable(), orNull(id), none),
  /**
   * Optional embedding of `originalContent` for semantic search (see
   * `store.capabilities.semanticSearch`); `null` marks the message as pending embedding.
   */
  embedding: optional(EmbeddingSchema.nullable(), orNull(embedding), none),
  /** When it was soft-deleted (epoch ms), or `null` while it is live. */
  deletedAt: optional(TimestampSchema.nullable(), orNull(is(isTimestamp)), none),
};

/**
 * A chat message. Strict: unknown keys are rejected. The same schema parses input (filling
 * defaults) and validates what is read back.
 */
export const MessageSchema = z.strictObject(shapeOf(MESSAGE_FIELDS));
/** What you pass to `storeMessage`. */
export type MessageInput = z.input<typeof MessageSchema>;
/** A message with every default filled, as stored and read back. */
export type Message = z.output<typeof MessageSchema>;
