import { isDeepStrictEqual } from "node:util";
import {
  type ConversationOwner,
  callPricer,
  ensureConversation,
  type Message,
  type MessageStoreApi,
  type ModelPricing,
  newId,
  type SessionTurn,
  sessionTurnOf,
} from "@message-store/core";
import type { ToolSet, UIMessage } from "ai";
import type { SystemMessages } from "../model-window.js";
import type { StepUsageLike } from "../turn-trace.js";
import { writeTurnTrace } from "../write-trace.js";
import {
  chatMessageId,
  type LoadedUIMessage,
  recordsToUIMessages,
  uiAsJson,
  uiMessageTurns,
} from "./ui-records.js";

/** Who the chats of a {@link ChatStore} belong to, and how UIMessages are converted. */
export interface ChatStoreOptions extends ConversationOwner {
  /** The tools of your `streamText` call, so tool outputs convert as they do for the model. */
  tools?: ToolSet;
  /**
   * Stored `system` messages written by other tools (a LangChain or Agents conversation):
   * `"omit"` (default) leaves them out of `loadChat`, so that `convertToModelMessages` of the
   * loaded chat can be passed to `streamText` on every `ai` major (ai 7 rejects system messages
   * in `messages` by default); `"keep"` loads them as system UIMessages. UIMessages saved by the
   * chat store come back as saved either way.
   */
  systemMessages?: SystemMessages;
  /**
   * Per-token prices by model (core's `ModelPricing`): the LLM calls of the traces `onFinish`
   * stores get their `costUsd` from it. Without it costs stay unknown (null), never $0.
   */
  pricing?: ModelPricing;
}

/** The end-of-stream event of `toUIMessageStream` / `toUIMessageStreamResponse` (`onFinish`, `onEnd`). */
export interface UIMessageStreamEndEvent<M extends UIMessage = UIMessage> {
  messages: M[];
  responseMessage?: M;
}

/** Options of {@link ChatStore.onFinish}. */
export interface OnFinishOptions {
  /** `result.steps` of the `streamText` call: the turn's trace is stored from it. */
  steps?: PromiseLike<readonly StepUsageLike[]>;
  /** Wall-clock start of the turn (epoch ms), for latency on ai 5 and 6. */
  startedAt?: number;
}

/**
 * `useChat` persistence on a message store, with the functions of the AI SDK's "Chatbot Message
 * Persistence" guide. A chat is a conversation of `userId`; a chat id owned by another user is
 * refused with `NotFoundError` on writes and reads as an empty chat.
 */
export interface ChatStore {
  /**
   * Creates the chat (`id` default: a new id) if it does not exist, and resolves to its id.
   * `title` is set only when the chat is created.
   */
  createChat(options?: { id?: string; title?: string }): Promise<string>;

  /**
   * The chat's UIMessages, oldest first, exactly as saved (ids, parts, metadata). Messages of the
   * conversation written by other tools are included as UIMessages too (see the README). `[]`
   * for an unknown chat. Flagged messages are left out.
   */
  loadChat<M extends UIMessage = UIMessage>(chatId: string): Promise<M[]>;

  /**
   * Makes the stored chat equal to `messages` (the full list `onFinish` receives), in one
   * all-or-nothing batch: new messages are appended after the newest stored one, changed ones
   * are rewritten in place, unchanged ones are not written, and stored ones missing from
   * `messages` (a regenerated answer) are flagged, which hides them from `loadChat` and replay
   * while keeping them for audit. Creates the chat if needed.
   */
  saveChat(args: { chatId: string; messages: UIMessage[] }): Promise<void>;

  /**
   * A callback for `toUIMessageStreamResponse({ originalMessages, onFinish })` (or `onEnd`) that
   * saves the chat and, with `steps`, stores the turn's trace on the last assistant message of
   * the response. Rejects with the store's error if saving fails.
   */
  onFinish(
    chatId: string,
    options?: OnFinishOptions,
  ): (event: UIMessageStreamEndEvent) => Promise<void>;
}

const PAGE = 1000;

/** A {@link ChatStore} on `store` (a store or a `forUser` view) for `options.userId`. */
export function createChatStore(store: MessageStoreApi, options: ChatStoreOptions): ChatStore {
  const owner = {
    userId: options.userId,
    agentId: options.agentId ?? null,
    tenantId: options.tenantId ?? null,
  };
  const user = store.forUser(owner.userId);
  const view = owner.tenantId === null ? user : user.forTenant(owner.tenantId);
  callPricer(options.pricing); // an invalid map is refused here, not after a chat was saved

  /** The chat's visible messages (another user's chat reads empty through the view). */
  async function transcript(chatId: string): Promise<Message[]> {
    const records: Message[] = [];
    let cursor: string | null = null;
    do {
      const page = await view.getMessagesByConversationId(chatId, { limit: PAGE, cursor });
      for (const m of page.items) if (!m.isFlagged) records.push(m);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return records;
  }

  /**
   * Saves in one atomic `storeSessionMessages` and resolves to the stored messages of each
   * UIMessage id: changed UIMessages are rewritten in place (their stored messages keep their
   * ids and places), new ones appended, missing ones hidden.
   */
  async function persist(chatId: string, messages: UIMessage[]): Promise<Map<string, Message[]>> {
    const loaded = new Map<string, LoadedUIMessage>();
    // Loaded as `loadChat` loads them: stored system messages it omits are never hidden.
    for (const entry of recordsToUIMessages(await transcript(chatId), options.systemMessages)) {
      loaded.set(entry.ui.id, entry);
    }
    const result = new Map<string, Message[]>();
    const written = new Map<string, string[]>();
    const turns: SessionTurn[] = [];
    const kept = new Set<string>();
    for (const message of messages.map(uiAsJson)) {
      const previous = loaded.get(message.id);
      if (previous && isDeepStrictEqual(previous.ui, message)) {
        for (const r of previous.records) kept.add(r.id);
        result.set(message.id, previous.records);
        continue;
      }
      const baseId = previous?.records[0]?.id ?? chatMessageId(chatId, message.id);
      const uiTurns = await uiMessageTurns(message, baseId, options.tools);
      for (const turn of uiTurns) kept.add(turn.id!);
      written.set(
        message.id,
        uiTurns.map((t) => t.id!),
      );
      turns.push(...uiTurns);
    }
    const hidden = [...loaded.values()]
      .flatMap((entry) => entry.records)
      .filter((r) => !kept.has(r.id))
      .map((r) => ({ ...sessionTurnOf(r), isFlagged: true }));
    if (turns.length + hidden.length === 0) return result;
    const saved = await view.storeSessionMessages(chatId, [...hidden, ...turns], {
      userId: owner.userId,
      ...(owner.agentId ? { agentId: owner.agentId } : {}),
      ...(owner.tenantId ? { tenantId: owner.tenantId } : {}),
    });
    const byId = new Map(saved.map((m) => [m.id, m]));
    for (const [id, ids] of written)
      result.set(
        id,
        ids.map((i) => byId.get(i)!),
      );
    return result;
  }

  return {
    async createChat(args = {}) {
      const id = args.id ?? newId();
      await ensureConversation(store, id, { ...owner, title: args.title ?? null });
      return id;
    },

    async loadChat<M extends UIMessage = UIMessage>(chatId: string): Promise<M[]> {
      return recordsToUIMessages(await transcript(chatId), options.systemMessages).map(
        (entry) => entry.ui as M,
      );
    },

    async saveChat({ chatId, messages }) {
      await persist(chatId, messages);
    },

    onFinish(chatId, finishOptions = {}) {
      return async (event) => {
        const records = await persist(chatId, event.messages);
        if (!finishOptions.steps) return;
        const steps = await Promise.resolve(finishOptions.steps).then(
          (s) => s,
          () => null, // an aborted stream has no steps to trace
        );
        const response = event.responseMessage ?? event.messages.at(-1);
        const ender = response && records.get(response.id)?.findLast((m) => m.role === "assistant");
        if (!steps || steps.length === 0 || !ender) return;
        await writeTurnTrace(
          view,
          {
            conversationId: chatId,
            messageId: ender.id,
            agentId: options.agentId ?? "ai-sdk",
            userId: owner.userId,
          },
          steps,
          { startedAt: finishOptions.startedAt, pricing: options.pricing },
        );
      };
    },
  };
}
