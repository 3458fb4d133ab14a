import { z } from "zod";
import { JsonObjectSchema } from "./json.js";
import { IdSchema, StringListSchema, TextSchema, TimestampSchema } from "./primitives.js";

/**
 * A conversation as written. `createdAt` defaults to now, `updatedAt` to `createdAt`.
 * Strict: unknown keys are rejected.
 */
export const ConversationInputSchema = z
  .strictObject({
    id: IdSchema,
    userId: IdSchema,
    agentId: IdSchema.nullable().default(null),
    title: TextSchema.nullable().default(null),
    createdAt: TimestampSchema.optional(),
    updatedAt: TimestampSchema.optional(),
    tags: StringListSchema.default([]),
    metadata: JsonObjectSchema.default({}),
  })
  .transform((c) => {
    const createdAt = c.createdAt ?? Date.now();
    return { ...c, createdAt, updatedAt: c.updatedAt ?? createdAt };
  });

/** What you pass to `storeConversation`. */
export type ConversationInput = z.input<typeof ConversationInputSchema>;
/** A validated conversation with every default filled: what adapters persist. */
export type ConversationRecord = z.output<typeof ConversationInputSchema>;

/** A conversation as read back. */
export const ConversationSchema = z.strictObject({
  id: IdSchema,
  userId: IdSchema,
  agentId: IdSchema.nullable(),
  title: TextSchema.nullable(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  tags: StringListSchema,
  metadata: JsonObjectSchema,
  /** The greater of `updatedAt` and the newest message timestamp. */
  lastActivityAt: TimestampSchema,
});
export type Conversation = z.output<typeof ConversationSchema>;
