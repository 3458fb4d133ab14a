import {
  AIMessage,
  AIMessageChunk,
  ChatMessage,
  ChatMessageChunk,
  FunctionMessage,
  FunctionMessageChunk,
  HumanMessage,
  HumanMessageChunk,
  SystemMessage,
  SystemMessageChunk,
  ToolMessage,
  ToolMessageChunk,
} from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableLambda, RunnableWithMessageHistory } from "@langchain/core/runnables";
import { fakeModel } from "@langchain/core/testing";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { reply, toolAgent } from "./agent.js";
import { describeMessage, recordMessages, type Scenario, saved } from "./differential.js";

/** One message of every class a chat history takes, with the fields providers fill. */
export function everyMessageKind() {
  return [
    new SystemMessage("Be brief."),
    new HumanMessage({ content: "Plan a trip", id: "h1", name: "ann" }),
    new HumanMessage({
      content: [
        { type: "text", text: "My passport:" },
        { type: "image_url", image_url: { url: "https://example.com/p.png" } },
      ],
    }),
    new AIMessage({
      content: [
        { type: "reasoning", reasoning: "Flights first." },
        { type: "text", text: "Searching." },
      ],
      id: "a1",
      tool_calls: [{ id: "f1", name: "flights", args: { to: "NYC" }, type: "tool_call" }],
      invalid_tool_calls: [
        { id: "f2", name: "hotels", args: "{bad", error: "not JSON", type: "invalid_tool_call" },
      ],
      usage_metadata: { input_tokens: 10, output_tokens: 4, total_tokens: 14 },
      response_metadata: { model_name: "gpt-x", finish_reason: "tool_calls" },
      additional_kwargs: { refusal: null },
    }),
    new ToolMessage({
      content: '[{"id":"AF1"}]',
      tool_call_id: "f1",
      name: "flights",
      artifact: { raw: [1] },
    }),
    new ToolMessage({ content: "no hotels", tool_call_id: "f2", status: "error" }),
    new FunctionMessage({ content: "42", name: "legacy_fn" }),
    new ChatMessage({ content: "As the assistant said", role: "assistant" }),
    new AIMessageChunk({
      content: "Booked ",
      id: "c1",
      tool_call_chunks: [
        { name: "book", args: '{"id":"AF1"}', id: "b1", index: 0, type: "tool_call_chunk" },
      ],
      usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    }),
    new ToolMessageChunk({ content: "booked", tool_call_id: "b1" }),
    new AIMessageChunk({ content: [{ type: "text", text: "Done." }] }),
    new HumanMessageChunk({ content: "thanks" }),
    new SystemMessageChunk({ content: "Stay brief." }),
    new ChatMessageChunk({ content: "noted", role: "user" }),
    new FunctionMessageChunk({ content: "43", name: "legacy_fn" }),
  ];
}

/** Scenarios on chat histories, by name. */
export const SCENARIOS: Record<string, Scenario> = {
  "every message class, in one batch and one by one, then cleared and written again": async (
    histories,
    seen,
  ) => {
    const batch = histories("batch");
    await batch.addMessages(everyMessageKind());
    await recordMessages(seen, "batch", batch);
    const single = histories("single");
    for (const message of everyMessageKind()) await single.addMessage(message);
    await recordMessages(seen, "one by one", single);
    await single.addUserMessage("user text");
    await single.addAIMessage("ai text");
    await recordMessages(seen, "conveniences", single);
    await batch.clear();
    await recordMessages(seen, "cleared", batch);
    await recordMessages(seen, "the other session", single);
    await batch.clear();
    await batch.addMessages([new HumanMessage("again"), new AIMessage("ok")]);
    await recordMessages(seen, "written again", batch);
    await batch.addMessages([]);
    await recordMessages(seen, "nothing added", batch);
  },

  "RunnableWithMessageHistory around a tool-calling loop, three turns": async (histories, seen) => {
    const { model, agent } = toolAgent([
      reply("", [20, 8], [{ id: "call-1", name: "weather", args: { city: "Paris" } }]),
      reply("Sunny in Paris, 21°C.", [40, 6]),
      reply("", [50, 7], [{ id: "call-2", name: "weather", args: { city: "Oslo" } }]),
      reply("Sunny in Oslo too.", [60, 5]),
      reply("You're welcome!", [55, 4]),
    ]);
    const chain = new RunnableWithMessageHistory({ runnable: agent, getMessageHistory: histories });
    const config = { configurable: { sessionId: "tools" } };
    for (const text of ["Weather in Paris?", "And Oslo?", "Thanks!"]) {
      const out = await chain.invoke([new HumanMessage(text)], config);
      seen.record(`output of ${text}`, out.map(describeMessage));
    }
    seen.record(
      "model saw",
      model.calls.map((c) => c.messages.map(describeMessage)),
    );
    await recordMessages(seen, "history", histories("tools"));
  },

  "RunnableWithMessageHistory with a prompt, input and history keys, two sessions": async (
    histories,
    seen,
  ) => {
    const model = fakeModel()
      .respond(new AIMessage("Hello Ann."))
      .respond(new AIMessage("Hello Bob."))
      .respond(new AIMessage("Your name is Ann."));
    const prompt = ChatPromptTemplate.fromMessages([
      ["system", "You are a helpful assistant."],
      new MessagesPlaceholder("history"),
      ["human", "{question}"],
    ]);
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(model),
      getMessageHistory: histories,
      inputMessagesKey: "question",
      historyMessagesKey: "history",
    });
    const ask = (sessionId: string, question: string) =>
      chain.invoke({ question }, { configurable: { sessionId } });
    seen.record("ann 1", describeMessage(await ask("ann", "I am Ann.")));
    seen.record("bob 1", describeMessage(await ask("bob", "I am Bob.")));
    seen.record("ann 2", describeMessage(await ask("ann", "What is my name?")));
    seen.record(
      "model saw",
      model.calls.map((c) => c.messages.map(describeMessage)),
    );
    await recordMessages(seen, "ann", histories("ann"));
    await recordMessages(seen, "bob", histories("bob"));
  },

  "RunnableWithMessageHistory streaming a chat model: the answer is stored as a chunk": async (
    histories,
    seen,
  ) => {
    const model = new FakeListChatModel({ responses: ["Streamed answer.", "Second answer."] });
    const chain = new RunnableWithMessageHistory({ runnable: model, getMessageHistory: histories });
    const config = { configurable: { sessionId: "stream" } };
    for (const [n, text] of ["Hi", "Again"].entries()) {
      let streamed = "";
      for await (const chunk of await chain.stream([new HumanMessage(text)], config)) {
        streamed += chunk.text;
      }
      seen.record(`streamed ${n}`, streamed);
      await saved(histories("stream"), 2 * (n + 1));
    }
    await recordMessages(seen, "history", histories("stream"));
  },

  "RunnableWithMessageHistory around a runnable answering with text or an output key": async (
    histories,
    seen,
  ) => {
    const text = new RunnableWithMessageHistory({
      runnable: RunnableLambda.from(
        async (messages: unknown) => `I saw ${(messages as unknown[]).length}.`,
      ),
      getMessageHistory: histories,
    });
    const config = { configurable: { sessionId: "text" } };
    seen.record("text 1", await text.invoke("one", config));
    seen.record("text 2", await text.invoke("two", config));
    await recordMessages(seen, "text history", histories("text"));

    const keyed = new RunnableWithMessageHistory({
      runnable: RunnableLambda.from(async (input: { question: string; history?: unknown[] }) => ({
        answer: new AIMessage(`${input.question} (after ${input.history?.length})`),
        debug: true,
      })),
      getMessageHistory: histories,
      inputMessagesKey: "question",
      historyMessagesKey: "history",
      outputMessagesKey: "answer",
    });
    const keyedConfig = { configurable: { sessionId: "keyed" } };
    for (const question of ["first", "second"]) {
      const out = await keyed.invoke({ question }, keyedConfig);
      seen.record(`keyed ${question}`, describeMessage(out.answer));
    }
    await recordMessages(seen, "keyed history", histories("keyed"));
  },
};
