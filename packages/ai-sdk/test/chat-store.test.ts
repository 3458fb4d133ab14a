import { newId, toModelMessages, toOpenAIChatMessages } from "@message-store/core";
import { useBridgeStore } from "@message-store/test-servers/bridge";
import {
  convertToModelMessages,
  createIdGenerator,
  stepCountIs,
  streamText,
  tool,
  type UIMessage,
} from "ai";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { chatMessageId, createChatStore, saveModelMessages } from "../src/index.js";
import { BACKENDS } from "./support/ai-major.js";
import { scriptedModel } from "./support/mock-model.js";

const tools = {
  weather: tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, sky: "sunny" }),
  }),
};

function userMessage(text: string): UIMessage {
  return { id: newId(), role: "user", parts: [{ type: "text", text }] };
}

describe.each(BACKENDS)("chat persistence (useChat) on %s", (backend) => {
  const ctx = useBridgeStore(backend);

  /** One POST of the AI SDK guide's route: the client sends its last message only. */
  async function post(
    chats: ReturnType<typeof createChatStore>,
    chatId: string,
    message: UIMessage,
    model: ReturnType<typeof scriptedModel>,
  ): Promise<UIMessage[]> {
    const messages = [...(await chats.loadChat(chatId)), message];
    const result = streamText({
      model,
      messages: await convertToModelMessages(messages),
      tools,
      stopWhen: stepCountIs(5),
    });
    let finished: UIMessage[] = [];
    const save = chats.onFinish(chatId, { steps: result.steps });
    const response = result.toUIMessageStreamResponse({
      originalMessages: messages,
      generateMessageId: createIdGenerator({ prefix: "msg", size: 16 }),
      onFinish: async (event) => {
        finished = event.messages;
        await save(event);
      },
    });
    await response.text();
    return finished;
  }

  it("saves and reloads UIMessages exactly, with a turn trace, and continues the chat", async () => {
    const { store } = ctx;
    const chats = createChatStore(store, { userId: "u1", agentId: "chat-bot", tools });
    const chatId = await chats.createChat({ title: "Weather" });
    expect(await store.getConversation(chatId)).toMatchObject({
      title: "Weather",
      agentId: "chat-bot",
    });
    expect(await chats.loadChat(chatId)).toEqual([]);

    const model = scriptedModel([
      {
        reasoning: "Use the tool.",
        text: "Checking.",
        toolCalls: [{ id: "call-1", name: "weather", input: { city: "Paris" } }],
        usage: [20, 8],
      },
      { text: "Sunny in Paris.", usage: [40, 5] },
      { text: "You're welcome!", usage: [50, 3] },
    ]);
    const first = await post(chats, chatId, userMessage("Weather in Paris?"), model);
    expect(first.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(first[1]!.id).toMatch(/^msg-/);
    expect(first[1]!.parts.map((p) => p.type)).toEqual([
      "step-start",
      "reasoning",
      "text",
      "tool-weather",
      "step-start",
      "text",
    ]);
    expect(await chats.loadChat(chatId)).toEqual(JSON.parse(JSON.stringify(first)));

    // Other tools see ordinary messages: one per step, the tool result as a tool message.
    const stored = (await store.getMessagesByConversationId(chatId)).items;
    const answerId = chatMessageId(chatId, first[1]!.id);
    expect(stored.map((m) => [m.id, m.role])).toEqual([
      [chatMessageId(chatId, first[0]!.id), "user"],
      [answerId, "assistant"],
      [`${answerId}:1`, "tool"],
      [`${answerId}:2`, "assistant"],
    ]);
    expect(stored[1]).toMatchObject({
      reasoningSteps: ["Use the tool."],
      toolCalls: [{ toolCallId: "call-1" }],
    });
    const openai = toOpenAIChatMessages(stored);
    expect(openai.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(toModelMessages(stored)).toEqual([
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          {
            type: "tool-call",
            toolCallId: "call-1",
            toolName: "weather",
            input: { city: "Paris" },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call-1",
            toolName: "weather",
            output: { type: "json", value: { city: "Paris", sky: "sunny" } },
          },
        ],
      },
      { role: "assistant", content: "Sunny in Paris." },
    ]);

    const trace = await store.getTurnTraceByMessageId(`${answerId}:2`);
    expect(trace).toMatchObject({ agentId: "chat-bot", userId: "u1", totalTokens: 73 });
    expect(trace!.llmCalls.map((c) => [c.promptTokens, c.completionTokens])).toEqual([
      [20, 8],
      [40, 5],
    ]);

    // Turn 2: only the new message travels; history comes from the store.
    const spy = vi.spyOn(store.driver, "storeSessionMessages"); // views share the driver
    const second = await post(chats, chatId, userMessage("Thanks!"), model);
    expect(second).toHaveLength(4);
    const written = spy.mock.calls.flatMap(([request]) => request.messages.map((m) => m.id));
    expect(written).toEqual([
      chatMessageId(chatId, second[2]!.id),
      chatMessageId(chatId, second[3]!.id),
    ]); // unchanged messages are not rewritten
    expect(await chats.loadChat(chatId)).toEqual(JSON.parse(JSON.stringify(second)));
    expect(model.doStreamCalls[2]!.prompt.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
  });

  it("regenerating an answer hides the old one; edited messages are rewritten in place", async () => {
    const { store } = ctx;
    const chats = createChatStore(store, { userId: "u1" });
    const chatId = await chats.createChat();
    const question = userMessage("Pick a number");
    const old: UIMessage = {
      id: "answer-1",
      role: "assistant",
      parts: [{ type: "text", text: "7" }],
    };
    await chats.saveChat({ chatId, messages: [question, old] });
    const fresh: UIMessage = {
      id: "answer-2",
      role: "assistant",
      parts: [{ type: "text", text: "4" }],
      metadata: { n: 2 },
    };
    await chats.saveChat({ chatId, messages: [question, fresh] });
    expect(await chats.loadChat(chatId)).toEqual([question, fresh]);
    const all = (await store.getMessagesByConversationId(chatId)).items;
    const id = (uiId: string) => chatMessageId(chatId, uiId);
    expect(all.map((m) => [m.id, m.isFlagged])).toEqual([
      [id(question.id), false],
      [id("answer-1"), true],
      [id("answer-2"), false],
    ]);

    const edited = { ...question, parts: [{ type: "text" as const, text: "Pick an even number" }] };
    await chats.saveChat({ chatId, messages: [edited, fresh] });
    expect(await chats.loadChat(chatId)).toEqual([edited, fresh]);
    const after = (await store.getMessagesByConversationId(chatId)).items;
    expect(after.map((m) => m.id)).toEqual([id(question.id), id("answer-1"), id("answer-2")]); // same place
    expect(after[0]!.originalContent).toBe("Pick an even number");
  });

  it("loads a conversation written by other means as UIMessages the SDK can continue", async () => {
    const { store } = ctx;
    const conversationId = newId();
    await saveModelMessages(store, {
      conversationId,
      userId: "u1",
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "tool time" },
            { type: "tool-call", toolCallId: "c9", toolName: "weather", input: { city: "Oslo" } },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c9",
              toolName: "weather",
              output: { type: "json", value: { sky: "snow" } },
            },
          ],
        },
        { role: "assistant", content: "Snow in Oslo." },
      ],
    });
    const stored = (await store.getMessagesByConversationId(conversationId)).items;
    const chats = createChatStore(store, { userId: "u1" });
    const loaded = await chats.loadChat(conversationId);
    expect(loaded.map((m) => [m.id, m.role])).toEqual([
      [stored[0]!.id, "user"],
      [stored[1]!.id, "assistant"],
      [stored[3]!.id, "assistant"],
    ]);
    expect(loaded[1]!.parts).toEqual([
      { type: "step-start" },
      { type: "reasoning", text: "tool time", state: "done" },
      {
        type: "dynamic-tool",
        toolName: "weather",
        toolCallId: "c9",
        input: { city: "Oslo" },
        state: "output-available",
        output: { sky: "snow" },
      },
    ]);
    const model = scriptedModel([{ text: "Still snowing.", usage: [10, 3] }]);
    const next = await post(chats, conversationId, userMessage("Now?"), model);
    expect(model.doStreamCalls[0]!.prompt.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(next).toHaveLength(5);
    // Saving the loaded history back wrote nothing twice.
    const after = (await store.getMessagesByConversationId(conversationId)).items;
    expect(after.filter((m) => m.isFlagged)).toEqual([]);
    expect(after).toHaveLength(stored.length + 2);
  });

  it("keeps chats per user: another user's chat reads empty and refuses writes", async () => {
    const { store } = ctx;
    const mine = createChatStore(store, { userId: "u1" });
    const theirs = createChatStore(store, { userId: "u2" });
    const chatId = await mine.createChat();
    await mine.saveChat({ chatId, messages: [userMessage("secret")] });
    expect(await theirs.loadChat(chatId)).toEqual([]);
    await expect(theirs.saveChat({ chatId, messages: [userMessage("x")] })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(theirs.createChat({ id: chatId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await mine.loadChat(chatId)).toHaveLength(1);
    expect(await mine.loadChat("no-such-chat")).toEqual([]);
  });
});
