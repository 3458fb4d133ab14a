import { z } from "zod";
import { fastConversationRecord } from "../canonical/canonical-conversation.js";
import { fastMessage, MAX_BATCH } from "../canonical/input-fast-paths.js";
import { type ConversationRecord, ConversationRecordSchema } from "../models/conversation.js";
import { type Message, MessageSchema } from "../models/message.js";
import { type SessionOptionsSchema, SessionTurnSchema } from "../models/session.js";
import { newId } from "../new-id.js";
import { parseInput } from "../validation.js";

/** The turns of one `storeSessionMessages` call. */
export const SessionTurnsSchema = z.array(SessionTurnSchema).max(MAX_BATCH);
type Turn = z.output<typeof SessionTurnSchema>;
type Options = z.output<typeof SessionOptionsSchema>;

/**
 * The messages `turns` become: ids generated (UUID v7) unless given, timestamps `start`,
 * `start + 1`, … in array order, user and tenant from the options.
 */
export function sessionMessages(
  conversationId: string,
  turns: readonly Turn[],
  options: Options,
  start: number,
  adapter: string,
): Message[] {
  return turns.map(({ id, content, ...fields }, i) =>
    parseInput(
      MessageSchema,
      {
        ...fields,
        id: id ?? newId(),
        conversationId,
        userId: options.userId,
        tenantId: options.tenantId ?? null,
        originalContent: content,
        timestamp: start + i,
        deletedAt: null,
      },
      `turns[${i}]`,
      adapter,
      fastMessage,
    ),
  );
}

/** The conversation `storeSessionMessages` creates when it is missing. */
export function sessionConversation(
  id: string,
  options: Options,
  now: number,
  adapter: string,
): ConversationRecord {
  return parseInput(
    ConversationRecordSchema,
    {
      id,
      userId: options.userId,
      tenantId: options.tenantId ?? null,
      agentId: options.agentId ?? null,
      title: options.title ?? null,
      createdAt: now,
      updatedAt: now,
    },
    "conversation",
    adapter,
    fastConversationRecord,
  );
}
