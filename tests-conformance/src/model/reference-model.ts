import { compareIds } from "@message-store/core/adapter";

/** What the model keeps of a conversation, and what a read is compared on. */
export interface ModelConversation {
  id: string;
  userId: string;
  updatedAt: number;
  /** Newest timestamp of every message ever stored in it (deleted or moved ones included). */
  newestMessageAt: number | null;
}

/** What the model keeps of a message, and what a read is compared on. */
export interface ModelMessage {
  id: string;
  conversationId: string;
  userId: string;
  timestamp: number;
  isFlagged: boolean;
  /** Receipt order: the place a new message takes; an upsert keeps it. Not compared. */
  sequence: number;
}

/** A conversation as reads are compared: the fields the model predicts. */
export interface ConversationView {
  id: string;
  userId: string;
  updatedAt: number;
  lastActivityAt: number;
}

/** A message as reads are compared. */
export type MessageView = Omit<ModelMessage, "sequence">;

/**
 * The reference model of the contract the model-based test runs beside the adapter: plain maps,
 * the rules of `MessageStoreApi` written the shortest way. It is the oracle, so it stays small.
 */
export class ReferenceModel {
  readonly conversations = new Map<string, ModelConversation>();
  readonly messages = new Map<string, ModelMessage>();
  #sequence = 0;

  nextSequence(): number {
    return ++this.#sequence;
  }

  conversationView(c: ModelConversation): ConversationView {
    const lastActivityAt =
      c.newestMessageAt === null ? c.updatedAt : Math.max(c.updatedAt, c.newestMessageAt);
    return { id: c.id, userId: c.userId, updatedAt: c.updatedAt, lastActivityAt };
  }

  static messageView(m: ModelMessage): MessageView {
    const { sequence: _sequence, ...view } = m;
    return view;
  }

  /** The transcript: `(timestamp, receipt order)` ascending. */
  transcript(conversationId: string): ModelMessage[] {
    return [...this.messages.values()]
      .filter((m) => m.conversationId === conversationId)
      .sort((a, b) => a.timestamp - b.timestamp || a.sequence - b.sequence);
  }

  /** The n most recent non-flagged messages, oldest first. */
  context(conversationId: string, n: number): ModelMessage[] {
    const live = this.transcript(conversationId).filter((m) => !m.isFlagged);
    return n === 0 ? [] : live.slice(-n);
  }

  /** A user's conversations: `lastActivityAt` descending, then id ascending. */
  conversationsOf(userId: string): ConversationView[] {
    return [...this.conversations.values()]
      .filter((c) => c.userId === userId)
      .map((c) => this.conversationView(c))
      .sort((a, b) => b.lastActivityAt - a.lastActivityAt || compareIds(a.id, b.id));
  }

  /** Removes a conversation and its messages; the count of messages removed. */
  dropConversation(id: string): number {
    let removed = 0;
    for (const m of [...this.messages.values()]) {
      if (m.conversationId === id) {
        this.messages.delete(m.id);
        removed++;
      }
    }
    this.conversations.delete(id);
    return removed;
  }
}
