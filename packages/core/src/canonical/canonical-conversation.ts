import {
  CONVERSATION_FIELDS,
  CONVERSATION_READ_FIELDS,
  type Conversation,
  type ConversationRecord,
} from "../models/conversation.js";
import { fieldsOf, storedFieldsOf } from "../models/model-field.js";
import { canonicalObject } from "./canonical-object.js";

// Records are complete: stored rows and filled input have every field, so no defaults apply.
const RECORD = storedFieldsOf(CONVERSATION_FIELDS);
const CONVERSATION = storedFieldsOf(CONVERSATION_READ_FIELDS);
// With the model's defaults, as `ConversationRecordSchema` fills them.
const RECORD_INPUT = fieldsOf(CONVERSATION_FIELDS);

/**
 * The structural fast path of `ConversationSchema` (a conversation as read back, with
 * `lastActivityAt`): the record as the schema would output it, or `undefined` (then run the
 * schema). Same rules and `copy` meaning as {@link canonicalMessage}.
 */
export function canonicalConversation(value: unknown, copy = false): Conversation | undefined {
  return canonicalObject(value, CONVERSATION, copy) as Conversation | undefined;
}

/**
 * The same for a {@link ConversationRecord} (what `storeConversation` hands an adapter: every
 * field filled, no `lastActivityAt`). Input with `createdAt` or `updatedAt` missing answers
 * `undefined`: their defaults depend on the clock and on each other, which the schema handles.
 */
export function canonicalConversationRecord(
  value: unknown,
  copy = false,
): ConversationRecord | undefined {
  return canonicalObject(value, RECORD, copy) as ConversationRecord | undefined;
}

/**
 * The structural fast path of `ConversationRecordSchema` (every field, the optional ones filled
 * with their defaults): a copy as the schema would output it, or `undefined`.
 */
export function fastConversationRecord(value: unknown): ConversationRecord | undefined {
  return canonicalObject(value, RECORD_INPUT, true) as ConversationRecord | undefined;
}
