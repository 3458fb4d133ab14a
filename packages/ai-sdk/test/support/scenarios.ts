import {
  convertToModelMessages,
  type ModelMessage,
  stepCountIs,
  streamText,
  type ToolSet,
  tool,
  type UIMessage,
} from "ai";
import { z } from "zod";
import type { Chats, Scenario } from "./differential.js";
import { type ScriptedStep, scriptedModel } from "./mock-model.js";

/** The tools of the scenarios' `streamText` calls. */
export const TOOLS: ToolSet = {
  weather: tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, sky: city === "Oslo" ? "snow" : "sunny" }),
  }),
};

/** A user UIMessage. */
export function userMessage(id: string, text: string): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

/** The prompts the scripted model was sent, call by call. */
function prompts(model: ReturnType<typeof scriptedModel>): unknown[] {
  return model.doStreamCalls.map((c) => c.prompt);
}

/**
 * One POST of the guide's route: the client sends its last message only, the history comes from
 * the store, and `onFinish` saves the whole chat. Message ids are generated in order.
 */
async function post(
  chats: Chats,
  chatId: string,
  message: UIMessage,
  model: ReturnType<typeof scriptedModel>,
  ids: { next: number },
): Promise<void> {
  const messages = [...(await chats.loadChat(chatId)), message];
  const result = streamText({
    model,
    messages: await convertToModelMessages(messages),
    tools: TOOLS,
    stopWhen: stepCountIs(5),
  });
  const response = result.toUIMessageStreamResponse({
    originalMessages: messages,
    generateMessageId: () => `msg-${++ids.next}`,
    onFinish: ({ messages: all }) => chats.saveChat({ chatId, messages: all }),
  });
  await response.text();
}

/** A three-turn script: a provider-executed search and a tool call, an answer, a goodbye. */
function weatherScript(): ScriptedStep[] {
  return [
    {
      reasoning: "Search first, then the tool.",
      providerCalls: [
        { id: "ws-1", name: "web_search", input: { query: "Oslo" }, result: { hits: 3 } },
      ],
      text: "Checking.",
      toolCalls: [{ id: "call-1", name: "weather", input: { city: "Oslo" } }],
      usage: [20, 8],
    },
    { text: "Snow in Oslo.", usage: [40, 5] },
    { text: "And sunny in Paris.", toolCalls: [], usage: [45, 6] },
    { text: "Bye!", usage: [50, 3] },
  ];
}

/** One UIMessage of every part kind the AI SDK's majors share, and message metadata. */
export function everyPartKind(): UIMessage[] {
  return [
    {
      id: "u1",
      role: "user",
      metadata: { createdAt: 1 },
      parts: [
        { type: "text", text: "Plan a trip, see the file." },
        {
          type: "file",
          mediaType: "application/pdf",
          url: "https://example.com/t.pdf",
          filename: "t.pdf",
        },
      ],
    },
    {
      id: "a1",
      role: "assistant",
      metadata: { model: "m1" },
      parts: [
        { type: "step-start" },
        {
          type: "reasoning",
          text: "Search.",
          state: "done",
          providerMetadata: { x: { sig: "s" } },
        },
        {
          type: "dynamic-tool",
          toolName: "web_search",
          toolCallId: "ws-1",
          state: "output-available",
          input: { query: "flights" },
          output: { hits: 2 },
          providerExecuted: true,
        },
        { type: "source-url", sourceId: "s1", url: "https://example.com/f", title: "Flights" },
        { type: "source-document", sourceId: "s2", mediaType: "text/plain", title: "Notes" },
        { type: "text", text: "Found two.", state: "done" },
        {
          type: "tool-weather",
          toolCallId: "c1",
          state: "output-available",
          input: { city: "Paris" },
          output: { sky: "sunny" },
        },
        {
          type: "tool-weather",
          toolCallId: "c2",
          state: "output-error",
          input: { city: "Atlantis" },
          errorText: "no such city",
        },
        { type: "step-start" },
        { type: "data-itinerary", id: "d1", data: { legs: ["CDG", "JFK"] } },
        { type: "text", text: "Here is the plan.", state: "done" },
      ],
    },
    {
      id: "a2",
      role: "assistant",
      parts: [
        { type: "step-start" },
        {
          type: "tool-weather",
          toolCallId: "c3",
          state: "input-available",
          input: { city: "Oslo" },
        },
      ],
    },
  ] as UIMessage[];
}

/** Scenarios of the guide's chat persistence, by name. */
export const CHAT_SCENARIOS: Record<string, Scenario> = {
  "the guide's route: create, send the last message only, reload, continue": async (
    { chats },
    seen,
  ) => {
    const model = scriptedModel(weatherScript());
    const ids = { next: 0 };
    const chatId = await chats.createChat({ id: "chat-route" });
    seen.record("new chat", await chats.loadChat(chatId));
    await post(chats, chatId, userMessage("q1", "Weather in Oslo?"), model, ids);
    seen.record("after turn 1", await chats.loadChat(chatId));
    await post(chats, chatId, userMessage("q2", "And Paris?"), model, ids);
    await post(chats, chatId, userMessage("q3", "Thanks"), model, ids);
    seen.record("after turn 3", await chats.loadChat(chatId));
    seen.record("model prompts", prompts(model));
  },

  "every UIMessage part kind, saved, loaded, edited and saved again": async ({ chats }, seen) => {
    const chatId = await chats.createChat({ id: "chat-parts" });
    const messages = everyPartKind();
    await chats.saveChat({ chatId, messages });
    seen.record("loaded", await chats.loadChat(chatId));
    const edited = structuredClone(messages);
    edited[0]!.parts = [{ type: "text", text: "Plan a shorter trip." }];
    edited[2]!.parts.push({ type: "text", text: "Checking Oslo.", state: "done" });
    await chats.saveChat({ chatId, messages: edited });
    seen.record("edited", await chats.loadChat(chatId));
  },

  "regenerating an answer, editing a question, truncating the chat": async ({ chats }, seen) => {
    const chatId = await chats.createChat({ id: "chat-regen" });
    const q = userMessage("q1", "Pick a number");
    const first: UIMessage = { id: "a1", role: "assistant", parts: [{ type: "text", text: "7" }] };
    await chats.saveChat({ chatId, messages: [q, first] });
    const second: UIMessage = { id: "a2", role: "assistant", parts: [{ type: "text", text: "4" }] };
    await chats.saveChat({ chatId, messages: [q, second] });
    seen.record("regenerated", await chats.loadChat(chatId));
    const edited = userMessage("q1", "Pick an even number");
    await chats.saveChat({ chatId, messages: [edited, second, userMessage("q2", "Why?")] });
    seen.record("edited and extended", await chats.loadChat(chatId));
    await chats.saveChat({ chatId, messages: [edited] });
    seen.record("truncated", await chats.loadChat(chatId));
    await chats.saveChat({ chatId, messages: [edited, first] });
    seen.record("an earlier answer back", await chats.loadChat(chatId));
  },

  "forking a chat, whole and from a message, and continuing the fork": async ({ chats }, seen) => {
    const model = scriptedModel(weatherScript());
    const ids = { next: 0 };
    const original = await chats.createChat({ id: "chat-original" });
    await post(chats, original, userMessage("q1", "Weather in Oslo?"), model, ids);
    const history = await chats.loadChat(original);
    const fork = await chats.createChat({ id: "chat-fork" });
    await chats.saveChat({ chatId: fork, messages: history });
    seen.record("fork", await chats.loadChat(fork));
    await post(chats, fork, userMessage("q2", "And Paris?"), model, ids);
    seen.record("fork continued", await chats.loadChat(fork));
    seen.record("original untouched", await chats.loadChat(original));
    const branch = await chats.createChat({ id: "chat-branch" });
    await chats.saveChat({ chatId: branch, messages: history.slice(0, 1) });
    seen.record("branch from the question", await chats.loadChat(branch));
    const edited = structuredClone(history);
    edited[0] = userMessage("q1", "Weather in Bergen?");
    await chats.saveChat({ chatId: fork, messages: edited });
    seen.record("fork edited", await chats.loadChat(fork));
    seen.record("original still untouched", await chats.loadChat(original));
    seen.record("model prompts", prompts(model));
  },
};

/** One turn of an agent loop on model message memory: load, call the model, save. */
async function turn(
  memories: Parameters<Scenario>[0],
  conversationId: string,
  prompt: ModelMessage,
  model: ReturnType<typeof scriptedModel>,
): Promise<void> {
  const history = await memories.memory.load(conversationId);
  const result = streamText({
    model,
    messages: [...history, prompt],
    tools: TOOLS,
    stopWhen: stepCountIs(5),
  });
  await result.consumeStream();
  await memories.memory.save(conversationId, { messages: [prompt], result });
}

/** Scenarios of `saveModelMessages` / `loadModelMessages`, by name. */
export const MODEL_SCENARIOS: Record<string, Scenario> = {
  "an agent loop over three turns: what is loaded and what the model sees": async (
    memories,
    seen,
  ) => {
    const model = scriptedModel(weatherScript());
    await turn(memories, "loop", { role: "user", content: "Weather in Oslo?" }, model);
    seen.record("after turn 1", await memories.memory.load("loop"));
    await turn(
      memories,
      "loop",
      { role: "user", content: [{ type: "text", text: "Paris?" }] },
      model,
    );
    await turn(memories, "loop", { role: "user", content: "Thanks" }, model);
    seen.record("after turn 3", await memories.memory.load("loop"));
    // (The newest 6 start at a tool result whose call is older: see the README.)
    for (const limit of [1, 2, 3, 4, 5, 7, 8, 100]) {
      seen.record(`newest ${limit}`, await memories.memory.load("loop", limit));
    }
    seen.record("model prompts", prompts(model));
  },

  "system messages kept in place when asked": async (memories, seen) => {
    await memories.memory.save("system", {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: [{ type: "text", text: "Hello." }] },
      ],
    });
    seen.record("loaded", await memories.memory.load("system"));
  },
};
