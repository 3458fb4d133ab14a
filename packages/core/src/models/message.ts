import { z } from "zod";
import { JsonObjectSchema, JsonSchema } from "./json.js";
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

export const EntitySchema = z.strictObject({
  name: TextSchema.min(1, "entity name must not be empty"),
  attributes: StringListSchema.default([]),
});
export type EntityInput = z.input<typeof EntitySchema>;
export type Entity = z.output<typeof EntitySchema>;

export const ToolCallSchema = z.strictObject({
  toolCallId: IdSchema,
  toolName: TextSchema.min(1),
  arguments: JsonObjectSchema.default({}),
  result: JsonSchema.nullable().default(null),
});
export type ToolCallInput = z.input<typeof ToolCallSchema>;
export type ToolCall = z.output<typeof ToolCallSchema>;

/** An embedding vector: finite numbers, at least one. */
export const EmbeddingSchema = z
  .array(FiniteSchema)
  .min(1)
  .max(65_536)
  // -0 cannot survive every backend's text protocol; normalise it so all adapters agree.
  .transform((v) => (v.some((x) => Object.is(x, -0)) ? v.map((x) => x + 0) : v));

/**
 * A chat message. Strict: unknown keys are rejected. The same schema parses input (filling
 * defaults) and validates what is read back.
 */
export const MessageSchema = z.strictObject({
  id: IdSchema,
  conversationId: IdSchema,
  userId: IdSchema,
  role: MessageRoleSchema,
  originalContent: TextSchema,
  enhancedMessage: TextSchema.nullable().default(null),
  explicitContext: TextSchema.nullable().default(null),
  episodeId: IdSchema.nullable().default(null),
  isFlagged: z.boolean().default(false),
  isContinuation: z.boolean().default(false),
  invokedFlows: StringListSchema.default([]),
  invokedTools: StringListSchema.default([]),
  reasoningSteps: StringListSchema.default([]),
  entities: z.array(EntitySchema).default([]),
  intent: TextSchema.nullable().default(null),
  sentiment: TextSchema.nullable().default(null),
  sentimentScore: z.number().min(-1).max(1).default(0),
  timestamp: TimestampSchema,
  toolCalls: z.array(ToolCallSchema).default([]),
  toolCallId: IdSchema.nullable().default(null),
  toolName: TextSchema.nullable().default(null),
  metadata: JsonObjectSchema.default({}),
  /** Optional embedding for semantic search (see `store.capabilities.semanticSearch`). */
  embedding: EmbeddingSchema.nullable().default(null),
});
/** What you pass to `storeMessage`. */
export type MessageInput = z.input<typeof MessageSchema>;
/** A message with every default filled, as stored and read back. */
export type Message = z.output<typeof MessageSchema>;
