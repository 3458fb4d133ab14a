import type { TurnTrace } from "@message-store/core";
import type { Write } from "@message-store/core/memory";
import { placeholders } from "./sql/statements.js";
import type { WorkingSet } from "./working-set.js";

const unique = (ids: Iterable<string>): string[] => [...new Set(ids)];

/**
 * For traces: the traces stored under their ids or on their messages, their messages (and the
 * messages of the stored traces, which a trace may not leave), and all their conversations.
 */
async function loadTraceContext(set: WorkingSet, traces: readonly TurnTrace[]): Promise<void> {
  const ids = unique(traces.map((t) => t.id));
  const messageIds = unique(traces.map((t) => t.messageId));
  const conversationIds = unique(traces.map((t) => t.conversationId));
  const messages = `id IN (${placeholders(messageIds.length)}) OR id IN (SELECT message_id FROM turn_traces WHERE id IN (${placeholders(ids.length)}))`;
  const messageParams = [...messageIds, ...ids];
  await set.conversations(
    `id IN (${placeholders(conversationIds.length)}) OR id IN (SELECT conversation_id FROM messages WHERE ${messages})`,
    [...conversationIds, ...messageParams],
  );
  await set.messages(messages, messageParams);
  await set.traces(
    `id IN (${placeholders(ids.length)}) OR message_id IN (SELECT id FROM messages WHERE ${messages})`,
    [...ids, ...messageParams],
  );
}

/**
 * Loads into the working set every record the resolution of `write` consults: the records it
 * names, their parents, and for a cascade the whole conversation (or, for erasure and purges,
 * every candidate record).
 */
export async function loadFor(set: WorkingSet, write: Write): Promise<void> {
  switch (write.method) {
    case "storeConversation":
      return set.conversationsById([write.request.conversation.id]);
    case "storeMessages": {
      const { messages } = write.request;
      await set.loadNextSequence();
      return set.messagesById(
        messages.map((m) => m.id),
        unique(messages.map((m) => m.conversationId)),
      );
    }
    case "storeSessionMessages": {
      const { conversation, messages } = write.request;
      await set.loadNextSequence();
      return set.messagesById(
        messages.map((m) => m.id),
        [conversation.id],
      );
    }
    case "putCheckpoint": {
      const { conversation, messages, traces } = write.request;
      await set.loadNextSequence();
      await set.messagesById(
        messages.map((m) => m.id),
        [conversation.id],
      );
      return loadTraceContext(set, traces);
    }
    case "storeTurnTraces":
      return loadTraceContext(set, write.request.traces);
    case "flagMessage":
    case "softDeleteMessage":
    case "restoreMessage":
    case "deleteMessage":
      return set.messagesById([write.request.id]);
    case "setEmbeddings":
      return set.messagesById(write.request.updates.map((u) => u.id));
    case "putCheckpointWrites":
      return set.conversationsById([write.request.conversation.id]);
    case "deleteCheckpoints":
      return set.conversationsById([write.request.id]);
    case "deleteConversation":
    case "softDeleteConversation":
    case "restoreConversation":
      return set.threads("id = ?", [write.request.id]);
    case "deleteUserData": {
      const { userId, tenantId } = write.request.scope;
      return tenantId === undefined
        ? set.threads("user_id = ?", [userId])
        : set.threads("user_id = ? AND tenant_id = ?", [userId, tenantId]);
    }
    case "purgeDeleted": {
      const { before } = write.request;
      await set.threads("deleted_at < ?", [before]);
      await set.conversations(
        "id IN (SELECT conversation_id FROM messages WHERE deleted_at < ?) OR id IN (SELECT conversation_id FROM turn_traces WHERE deleted_at < ?)",
        [before, before],
      );
      await set.messages(
        "deleted_at < ? OR id IN (SELECT message_id FROM turn_traces WHERE deleted_at < ?)",
        [before, before],
      );
      return set.traces(
        "deleted_at < ? OR message_id IN (SELECT id FROM messages WHERE deleted_at < ?)",
        [before, before],
      );
    }
  }
}
