import type { Conversation, ConversationRecord } from "../models/conversation.js";
import { canonicalObject, type Field, is, orNull, required, textList } from "./canonical-object.js";
import { isCount, isId, isJsonObject, isText } from "./json-checks.js";

const RECORD: readonly Field[] = [
  required("id", is(isId)),
  required("userId", is(isId)),
  required("agentId", orNull(is(isId))),
  required("title", orNull(is(isText))),
  required("createdAt", is(isCount)),
  required("updatedAt", is(isCount)),
  required("tags", textList),
  required("metadata", is(isJsonObject)),
];

const CONVERSATION: readonly Field[] = [...RECORD, required("lastActivityAt", is(isCount))];

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
