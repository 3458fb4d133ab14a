import { isDeepStrictEqual } from "node:util";
import {
  type ConversationOwner,
  ensureConversation,
  type Message,
  type MessageInput,
  type MessageStoreApi,
  newId,
} from "@message-store/core";
import type { ToolSet, UIMessage } from "ai";
import type { StepUsageLike } from "../turn-trace.js";
import { writeTurnTrace } from "../write-trace.js";
import {
  type LoadedUIMessage,
  recordsToUIMessages,
  uiAsJson,
  uiMessageToInputs,
} from "./ui-records.js";

/** Who the chats of a {@link ChatStore} belong to, and how UIMessages are converted. */
export interface ChatStoreOptions extends ConversationOwner {
  /** The tools of your `streamText` call, so tool outputs convert as they do for the model. */
  tools?: ToolSet;
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
  const owner = { userId: options.userId, agentId: options.agentId ?? null };

  async function transcript(chatId: string): Promise<Message[]> {
    const conversation = await store.getConversation(chatId);
    if (conversation === null || conversation.userId !== owner.userId) return [];
    const records: Message[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.getMessagesByConversationId(chatId, { limit: PAGE, cursor });
      for (const m of page.items) if (!m.isFlagged) records.push(m);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return records;
  }

  /** Saves and resolves to the stored messages of each UIMessage id. */
  async function persist(chatId: string, messages: UIMessage[]): Promise<Map<string, Message[]>> {
    await ensureConversation(store, chatId, owner);
    const stored = await transcript(chatId);
    const loaded = new Map<string, LoadedUIMessage>();
    for (const entry of recordsToUIMessages(stored)) loaded.set(entry.ui.id, entry);
    const appendAt = stored.reduce((max, m) => Math.max(max, m.timestamp), Date.now());

    const result = new Map<string, Message[]>();
    const writes: MessageInput[] = [];
    const kept = new Set<string>();
    for (const message of messages.map(uiAsJson)) {
      const previous = loaded.get(message.id);
      if (previous && isDeepStrictEqual(previous.ui, message)) {
        for (const r of previous.records) kept.add(r.id);
        result.set(message.id, previous.records);
        continue;
      }
      const inputs = await uiMessageToInputs(message, {
        conversationId: chatId,
        userId: owner.userId,
        timestamp: previous?.records[0]?.timestamp ?? appendAt,
        tools: options.tools,
      });
      for (const input of inputs) kept.add(input.id);
      writes.push(...inputs);
      result.set(message.id, inputs as Message[]);
    }
    const hidden = [...loaded.values()]
      .flatMap((entry) => entry.records)
      .filter((r) => !kept.has(r.id))
      .map((r) => ({ ...r, isFlagged: true }));
    if (writes.length + hidden.length > 0) {
      const saved = await store.storeMessages([...writes, ...hidden]);
      const byId = new Map(saved.map((m) => [m.id, m]));
      for (const [id, records] of result)
        result.set(
          id,
          records.map((r) => byId.get(r.id) ?? r),
        );
    }
    return result;
  }

  return {
    async createChat(args = {}) {
      const id = args.id ?? newId();
      await ensureConversation(store, id, { ...owner, title: args.title });
      return id;
    },

    async loadChat<M extends UIMessage = UIMessage>(chatId: string): Promise<M[]> {
      return recordsToUIMessages(await transcript(chatId)).map((entry) => entry.ui as M);
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
          store,
          {
            conversationId: chatId,
            messageId: ender.id,
            agentId: options.agentId ?? "ai-sdk",
            userId: owner.userId,
          },
          steps,
          { startedAt: finishOptions.startedAt },
        );
      };
    },
  };
}
