import { z } from "zod";
import { EmbeddingSchema, MESSAGE_FIELDS } from "./message.js";
import { shapeOf } from "./model-field.js";
import { IdSchema, TextSchema } from "./primitives.js";

// What core generates or takes from the session call rather than from a turn.
const {
  id: _id,
  conversationId: _conversationId,
  userId: _userId,
  tenantId: _tenantId,
  originalContent: _originalContent,
  timestamp: _timestamp,
  deletedAt: _deletedAt,
  role,
  ...rest
} = shapeOf(MESSAGE_FIELDS);

/**
 * One turn of `storeSessionMessages`: `{ role, content }` plus any optional message field
 * (`toolCalls`, `toolCallId`, `toolName`, `toolArguments`, `metadata`, `tags`, …). Core assigns
 * the conversation, user, tenant and timestamp; `id` is generated (UUID v7) unless given, which
 * makes a retried call an idempotent upsert.
 */
export const SessionTurnSchema = z.strictObject({
  id: IdSchema.optional(),
  role,
  /** The message text (stored as `originalContent`). */
  content: TextSchema,
  ...rest,
});
export type SessionTurn = z.input<typeof SessionTurnSchema>;

/** Options of `storeSessionMessages`: who owns the conversation, and how to create it if missing. */
export const SessionOptionsSchema = z.strictObject({
  userId: IdSchema,
  /** Used when the conversation is created. */
  agentId: IdSchema.optional(),
  /** The conversation's tenant; the messages inherit it. */
  tenantId: IdSchema.optional(),
  /** Used when the conversation is created. */
  title: TextSchema.optional(),
});
export type SessionOptions = z.input<typeof SessionOptionsSchema>;

/**
 * One `setEmbeddings` entry: the embedding of `originalContent`, set only if the message still
 * has that text (so an embedding computed from an older text is never stored).
 */
export const EmbeddingUpdateSchema = z.strictObject({
  id: IdSchema,
  embedding: EmbeddingSchema,
  originalContent: TextSchema,
});
export type EmbeddingUpdateInput = z.input<typeof EmbeddingUpdateSchema>;
export type EmbeddingUpdate = z.output<typeof EmbeddingUpdateSchema>;
