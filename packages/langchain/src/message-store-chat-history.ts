import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseMessage } from "@langchain/core/messages";
import {
  callPricer,
  type JsonObject,
  type Message,
  type MessageStoreApi,
  type ModelPricing,
  newId,
  sessionTurnOf,
} from "@message-store/core";
import { dropCutOffToolResults, fromRecords } from "./from-records.js";
import { type LangChainMetadata, langChainMetadata, METADATA_KEY, toTurns } from "./to-records.js";
import { turnUsage } from "./turn-usage.js";

/** Options of {@link MessageStoreChatMessageHistory}. */
export interface MessageStoreChatMessageHistoryInput {
  /** A store, or a `store.forUser(userId)` view. */
  store: MessageStoreApi;
  /** The conversation id; created on the first write if it does not exist. */
  sessionId: string;
  /** Owner of the conversation. A session of another user is refused with `NotFoundError`. */
  userId: string;
  /** The conversation's `agentId` when created, and the `agentId` of turn traces (default `"langchain"`). */
  agentId?: string;
  /**
   * Load only the newest `limit` messages (flagged ones skipped), so a long session is not read
   * whole on every turn. Tool results whose call falls outside the window are dropped. Default:
   * the whole session.
   */
  limit?: number;
  /**
   * Per-token prices by model (core's `ModelPricing`): the LLM calls of the turn traces get their
   * `costUsd` from it. Without it costs stay unknown (null), never $0. An invalid map is a
   * `ValidationError` here, in the constructor.
   */
  pricing?: ModelPricing;
}

const PAGE = 1000;

/**
 * A LangChain.js chat message history on a message store: use it wherever LangChain takes a
 * `BaseListChatMessageHistory`, e.g. `RunnableWithMessageHistory({ getMessageHistory })`.
 *
 * Messages are stored as ordinary messages of the conversation (see the README's mapping), so
 * the CLI, replay and analytics read them, and they come back exactly as added (same class,
 * chunks included). Each `addMessages` call is one atomic `storeSessionMessages` write, placed
 * after the newest stored message. When the added AIMessages carry `usage_metadata`, a turn
 * trace (tokens, model, latency since the turn's first `getMessages`) is stored on the last of
 * them.
 */
export class MessageStoreChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["langchain", "stores", "message", "message_store"];

  readonly store: MessageStoreApi;
  readonly sessionId: string;
  readonly userId: string;
  readonly agentId: string | undefined;
  readonly limit: number | undefined;
  readonly pricing: ModelPricing | undefined;
  /** The store seen as the owner: another user's conversation reads empty and refuses writes. */
  readonly #view: MessageStoreApi;
  /** When the running turn first read the history; cleared by each write. */
  #turnStartedAt: number | null = null;

  constructor(fields: MessageStoreChatMessageHistoryInput) {
    super(fields);
    this.store = fields.store;
    this.sessionId = fields.sessionId;
    this.userId = fields.userId;
    this.agentId = fields.agentId;
    this.limit = fields.limit;
    callPricer(fields.pricing);
    this.pricing = fields.pricing;
    this.#view = fields.store.forUser(fields.userId);
  }

  /**
   * The session's messages, oldest first (the newest `limit` with `limit`). Flagged messages are
   * left out. `[]` for a session that does not exist or belongs to another user.
   */
  async getMessages(): Promise<BaseMessage[]> {
    this.#turnStartedAt ??= Date.now();
    if (this.limit !== undefined) {
      const window = await this.#view.getImmediateContext(this.sessionId, this.limit);
      return dropCutOffToolResults(fromRecords(window));
    }
    return fromRecords((await this.#transcript()).filter((m) => !m.isFlagged));
  }

  /** Every message of the session, flagged ones included, oldest first. */
  async #transcript(): Promise<Message[]> {
    const records: Message[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.#view.getMessagesByConversationId(this.sessionId, {
        limit: PAGE,
        cursor,
      });
      records.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return records;
  }

  /** Appends one message; see {@link addMessages}. */
  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  /**
   * Appends messages in order, all or nothing, creating the conversation if needed. Rejects with
   * `ValidationError` for a message type a history cannot hold, `NotFoundError` when the session
   * belongs to another user, or the store's error; then nothing is stored.
   */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    const startedAt = this.#turnStartedAt;
    this.#turnStartedAt = null;
    if (messages.length === 0) return;
    const stored = await this.#view.storeSessionMessages(this.sessionId, toTurns(messages), {
      userId: this.userId,
      ...(this.agentId === undefined ? {} : { agentId: this.agentId }),
    });
    const usage = turnUsage(
      messages,
      startedAt === null ? 0 : Date.now() - startedAt,
      this.pricing,
    );
    const ender = stored.findLast((m) => m.role === "assistant");
    if (usage && ender) {
      await this.#view.storeTurnTrace({
        id: newId(),
        messageId: ender.id,
        conversationId: this.sessionId,
        agentId: this.agentId ?? "langchain",
        userId: this.userId,
        timestamp: Date.now(),
        ...usage,
        metadata: { source: "langchain" },
      });
    }
  }

  /**
   * Empties the session: every message is hidden (flagged), so `getMessages()` is `[]`; the
   * conversation, its messages and their turn traces stay (usage analytics are unchanged), and
   * the next write appends after them. Erase them with `store.deleteConversation(sessionId)`.
   * A session of another user is left alone.
   */
  override async clear(): Promise<void> {
    this.#turnStartedAt = null;
    const visible = (await this.#transcript()).filter((m) => !m.isFlagged);
    if (visible.length === 0) return;
    const hidden = visible.map((m) => {
      const metadata: LangChainMetadata = { ...langChainMetadata(m), hidden: "cleared" };
      return {
        ...sessionTurnOf(m),
        isFlagged: true,
        metadata: { ...m.metadata, [METADATA_KEY]: metadata as unknown as JsonObject },
      };
    });
    await this.#view.storeSessionMessages(this.sessionId, hidden, { userId: this.userId });
  }
}
