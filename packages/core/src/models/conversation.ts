import { z } from "zod";
import { is, orNull, textList } from "../canonical/canonical-object.js";
import { isCount, isId, isJsonObject, isText } from "../canonical/json-checks.js";
import { JsonObjectSchema } from "./json.js";
import { optional, required, shapeOf, storedShapeOf } from "./model-field.js";
import {
  IdSchema,
  StatusSchema,
  StringListSchema,
  TextSchema,
  TimestampSchema,
} from "./primitives.js";

const id = is(isId);
const count = is(isCount);
const none = () => null;
const isStatus = (v: unknown) => isText(v) && v.length >= 1 && v.length <= 64;

/**
 * The fields of a conversation record, in order: the one declaration the schemas, the canonical
 * checks and every adapter's storage layout are derived from. On input `createdAt` defaults to
 * now and `updatedAt` to `createdAt` (see {@link ConversationInputSchema}).
 *
 * `userId` and `tenantId` never change once stored (an upsert with another value is an
 * `IntegrityError`); the conversation's messages and traces inherit both. `deletedAt` is set by
 * `softDeleteConversation` and cleared by `restoreConversation`, never by an upsert of an existing
 * conversation.
 */
export const CONVERSATION_FIELDS = {
  id: required(IdSchema, id),
  userId: required(IdSchema, id),
  /** The tenant (organisation, workspace) the conversation belongs to; `null`: none. */
  tenantId: optional(IdSchema.nullable(), orNull(id), none),
  agentId: optional(IdSchema.nullable(), orNull(id), none),
  title: optional(TextSchema.nullable(), orNull(is(isText)), none),
  description: optional(TextSchema.nullable(), orNull(is(isText)), none),
  /** Free text of 1–64 characters (`"active"`, `"archived"`, …), as in the original design. */
  status: optional(StatusSchema, is(isStatus), () => "active"),
  createdAt: required(TimestampSchema, count),
  updatedAt: required(TimestampSchema, count),
  /** When it was soft-deleted (epoch ms), or `null` while it is live. */
  deletedAt: optional(TimestampSchema.nullable(), orNull(count), none),
  tags: optional(StringListSchema, textList, () => []),
  metadata: optional(JsonObjectSchema, is(isJsonObject), () => ({})),
};

/** What a conversation adds on reads: the greater of `updatedAt` and the newest message timestamp. */
export const CONVERSATION_READ_FIELDS = {
  ...CONVERSATION_FIELDS,
  lastActivityAt: required(TimestampSchema, count),
};

/**
 * A conversation as written. `createdAt` defaults to now, `updatedAt` to `createdAt`.
 * Strict: unknown keys are rejected.
 */
export const ConversationInputSchema = z
  .strictObject({
    ...shapeOf(CONVERSATION_FIELDS),
    createdAt: TimestampSchema.optional(),
    updatedAt: TimestampSchema.optional(),
  })
  .transform((c) => {
    const createdAt = c.createdAt ?? Date.now();
    return { ...c, createdAt, updatedAt: c.updatedAt ?? createdAt };
  });

/**
 * A conversation record with every field present and defaults filled for the optional ones: what
 * adapters persist, and what they read back from storage written before a field existed.
 */
export const ConversationRecordSchema = z.strictObject(shapeOf(CONVERSATION_FIELDS));

/** What you pass to `storeConversation`. */
export type ConversationInput = z.input<typeof ConversationInputSchema>;
/** A validated conversation with every default filled: what adapters persist. */
export type ConversationRecord = z.output<typeof ConversationInputSchema>;

/** A conversation as read back: every field present, with `lastActivityAt`. */
export const ConversationSchema = z.strictObject(storedShapeOf(CONVERSATION_READ_FIELDS));
export type Conversation = z.output<typeof ConversationSchema>;
