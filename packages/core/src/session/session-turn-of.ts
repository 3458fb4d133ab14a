import type { Message } from "../models/message.js";
import type { SessionTurn } from "../models/session.js";

/**
 * The `storeSessionMessages` turn that rewrites a stored message in place: the same id (so it
 * keeps its timestamp and place, see `storeSessionMessages`) and every field of the message,
 * `originalContent` as `content`. Change fields on the result (`isFlagged: true` hides the
 * message), then store it with new turns in one atomic call: what a framework bridge does to
 * hide, edit or replace messages while appending others. Fields that `storeSessionMessages`
 * takes from the call (conversation, user, tenant, timestamp) and `deletedAt` are left out.
 */
export function sessionTurnOf(message: Message): SessionTurn {
  const {
    conversationId: _conversationId,
    userId: _userId,
    tenantId: _tenantId,
    timestamp: _timestamp,
    deletedAt: _deletedAt,
    originalContent,
    ...fields
  } = message;
  return { ...fields, content: originalContent };
}
