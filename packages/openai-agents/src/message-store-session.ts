import { ensureConversation, type Message, type MessageStoreApi, newId } from "@message-store/core";
import type { AgentInputItem, RunContext, RunContextAwareSession } from "@openai/agents";
import { groupItems, recordOf } from "./items-to-record.js";
import { itemsOf } from "./record-to-items.js";
import { runUsage } from "./run-usage.js";

/** Options of {@link MessageStoreSession}. */
export interface MessageStoreSessionOptions {
  /** A store, or a `store.forUser(userId)` view. */
  store: MessageStoreApi;
  /** Owner of the conversation. A session of another user is refused with `NotFoundError`. */
  userId: string;
  /** The conversation id. Default: a new id. Created on the first write if it does not exist. */
  sessionId?: string;
  /** The conversation's `agentId` when created, and the `agentId` of turn traces (default `"openai-agents"`). */
  agentId?: string;
  /**
   * The model name recorded on turn traces (the SDK does not tell a session which model ran).
   * Default `"unknown"`.
   */
  model?: string;
}

interface RunState {
  startedAt: number;
  traceId: string;
}

const PAGE = 1000;

/**
 * An OpenAI Agents SDK `Session` on a message store: pass it as `run(agent, input, { session })`.
 *
 * Items are stored as ordinary messages of the conversation (one per message, function call or
 * function call result; other items ride along with one, see the README), so the CLI, replay and
 * analytics read them, and `getItems` gives them back exactly as added. Each `addItems` call is
 * one all-or-nothing batch appended after the newest stored message. Through the run context the
 * SDK passes it, the session stores one turn trace per run (tokens per model request, latency
 * from the run's first history read) on the run's last assistant message.
 */
export class MessageStoreSession implements RunContextAwareSession {
  readonly acceptsRunContext = true as const;
  readonly store: MessageStoreApi;
  readonly sessionId: string;
  readonly userId: string;
  readonly agentId: string | undefined;
  readonly model: string;
  readonly #runs = new WeakMap<RunContext<unknown>, RunState>();

  constructor(options: MessageStoreSessionOptions) {
    this.store = options.store;
    this.userId = options.userId;
    this.sessionId = options.sessionId ?? newId();
    this.agentId = options.agentId;
    this.model = options.model ?? "unknown";
  }

  /** The conversation id. Never throws. */
  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  #run(runContext: RunContext<unknown> | undefined): RunState | undefined {
    if (!runContext) return undefined;
    let state = this.#runs.get(runContext);
    if (!state) {
      state = { startedAt: Date.now(), traceId: newId() };
      this.#runs.set(runContext, state);
    }
    return state;
  }

  async #owned(): Promise<boolean> {
    const conversation = await this.store.getConversation(this.sessionId);
    return conversation !== null && conversation.userId === this.userId;
  }

  /** The session's non-flagged messages, oldest first: the newest `limit`, or all. */
  async #records(limit?: number): Promise<Message[]> {
    if (!(await this.#owned())) return [];
    if (limit !== undefined) return this.store.getImmediateContext(this.sessionId, limit);
    const records: Message[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.store.getMessagesByConversationId(this.sessionId, {
        limit: PAGE,
        cursor,
      });
      for (const m of page.items) if (!m.isFlagged) records.push(m);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return records;
  }

  /**
   * The session's items in chronological order: with `limit`, the newest `limit` items (`[]` for
   * 0). `[]` for a session that does not exist or belongs to another user.
   */
  async getItems(limit?: number, runContext?: RunContext<unknown>): Promise<AgentInputItem[]> {
    this.#run(runContext);
    if (limit !== undefined && limit <= 0) return [];
    const items = itemsOf(await this.#records(limit));
    return limit === undefined ? items : items.slice(-limit);
  }

  /**
   * Appends items in order, all or nothing, creating the conversation if needed. Rejects with
   * `NotFoundError` when the session belongs to another user, `ValidationError` for items JSON
   * cannot hold, or the store's error; then nothing is stored.
   */
  async addItems(items: AgentInputItem[], runContext?: RunContext<unknown>): Promise<void> {
    const run = this.#run(runContext);
    if (items.length === 0) return;
    await ensureConversation(this.store, this.sessionId, {
      userId: this.userId,
      agentId: this.agentId,
    });
    const [newest] = await this.store.getImmediateContext(this.sessionId, 1);
    const timestamp = Math.max(Date.now(), newest?.timestamp ?? 0);
    const records = groupItems(items).map((group) =>
      recordOf(group, {
        id: newId(),
        conversationId: this.sessionId,
        userId: this.userId,
        timestamp,
      }),
    );
    const stored = await this.store.storeMessages(records);
    const ender =
      stored.findLast((m) => m.role === "assistant" && m.originalContent !== "") ??
      stored.findLast((m) => m.role === "assistant");
    const usage =
      run && runContext ? runUsage(runContext.usage, this.model, Date.now() - run.startedAt) : null;
    if (usage && ender) {
      // One trace per run, moved to the newest answer when a run writes more than once.
      await this.store.storeTurnTrace({
        id: run!.traceId,
        messageId: ender.id,
        conversationId: this.sessionId,
        agentId: this.agentId ?? "openai-agents",
        userId: this.userId,
        timestamp: Date.now(),
        ...usage,
        metadata: { source: "openai-agents" },
      });
    }
  }

  /**
   * Removes the newest item and resolves to it, or to undefined for an empty session. The store
   * keeps no way to delete one message, so a message whose last item is popped is flagged (hidden
   * from `getItems`, replay and context, kept for audit); one standing for several items is
   * rewritten without the popped one.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    const [last] = await this.#records(1);
    if (!last) return undefined;
    const items = itemsOf([last]);
    const popped = items.pop();
    if (items.length === 0) {
      await this.store.flagMessage(last.id, true);
    } else {
      await this.store.storeMessage({ ...last, ...recordOf(items, last) });
    }
    return popped;
  }

  /** Deletes the conversation with its messages and traces; the next write starts it anew. */
  async clearSession(): Promise<void> {
    if (await this.#owned()) await this.store.deleteConversation(this.sessionId);
  }
}
