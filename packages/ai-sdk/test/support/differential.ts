import type { MessageStoreApi } from "@message-store/core";
import { type Observation, Observations } from "@message-store/test-servers/bridge";
import type { ModelMessage, ToolSet, UIMessage } from "ai";
import {
  createChatStore,
  loadModelMessages,
  type ModelCallResult,
  saveModelMessages,
} from "../../src/index.js";
import { responseMessagesOf } from "./ai-major.js";

/** The chat persistence functions of the AI SDK's persistence guide. */
export interface Chats {
  createChat(options?: { id?: string }): Promise<string>;
  loadChat(chatId: string): Promise<UIMessage[]>;
  saveChat(args: { chatId: string; messages: UIMessage[] }): Promise<void>;
}

/** Turn memory of model messages: append a turn, load the newest messages. */
export interface ModelMemory {
  save(
    conversationId: string,
    turn: { messages: ModelMessage[]; result?: ModelCallResult },
  ): Promise<void>;
  load(conversationId: string, limit?: number): Promise<ModelMessage[]>;
}

/** What a scenario works with: chat persistence and model message memory. */
export interface Memories {
  chats: Chats;
  memory: ModelMemory;
}

/**
 * The reference chat store: the guide's file store (one JSON file per chat, written whole by
 * `saveChat`), with a map in place of the files.
 */
export function guideChats(): Chats {
  const files = new Map<string, string>();
  let next = 0;
  return {
    async createChat(options = {}) {
      const id = options.id ?? `chat-${++next}`;
      files.set(id, "[]");
      return id;
    },
    async loadChat(chatId) {
      const file = files.get(chatId);
      if (file === undefined) throw new Error(`ENOENT: no chat file ${chatId}`);
      return JSON.parse(file) as UIMessage[];
    },
    async saveChat({ chatId, messages }) {
      files.set(chatId, JSON.stringify(messages, null, 2));
    },
  };
}

/** The reference model message memory: an array per conversation, as JSON would keep it. */
export function arrayMemory(): ModelMemory {
  const conversations = new Map<string, ModelMessage[]>();
  return {
    async save(conversationId, { messages, result }) {
      const turn = [...messages, ...(result ? await responseMessagesOf(result) : [])];
      const stored = conversations.get(conversationId) ?? [];
      conversations.set(conversationId, [...stored, ...JSON.parse(JSON.stringify(turn))]);
    },
    async load(conversationId, limit) {
      const stored = conversations.get(conversationId) ?? [];
      return limit === undefined ? stored : stored.slice(-limit);
    },
  };
}

/** The bridge, as the same two memories: a chat store and save/loadModelMessages. */
export function bridgeMemories(store: MessageStoreApi, tools: ToolSet): Memories {
  const chats = createChatStore(store, { userId: "u1", agentId: "chat-bot", tools });
  return {
    chats: {
      createChat: (options) => chats.createChat(options),
      loadChat: (chatId) => chats.loadChat(chatId),
      saveChat: (args) => chats.saveChat(args),
    },
    memory: {
      async save(conversationId, { messages, result }) {
        await saveModelMessages(store, { conversationId, userId: "u1", messages, result });
      },
      load: (conversationId, limit) =>
        loadModelMessages(store, conversationId, {
          limit: limit ?? 1_000_000,
          systemMessages: "keep",
        }),
    },
  };
}

/** A scenario: what a program does with the memories, recording what it observes. */
export type Scenario = (memories: Memories, seen: Observations) => Promise<void>;

/** Runs `scenario` on the reference memories and on `ours()`; resolves to both observations. */
export async function differential(
  scenario: Scenario,
  ours: () => Memories,
): Promise<{ reference: Observation[]; actual: Observation[] }> {
  const reference = new Observations();
  await scenario({ chats: guideChats(), memory: arrayMemory() }, reference);
  const actual = new Observations();
  await scenario(ours(), actual);
  return { reference: reference.list, actual: actual.list };
}
