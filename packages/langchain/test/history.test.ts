import {
  AIMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import {
  type ModelPricing,
  newId,
  toModelMessages,
  toOpenAIChatMessages,
} from "@message-store/core";
import { BRIDGE_BACKENDS, useBridgeStore } from "@message-store/test-servers/bridge";
import { describe, expect, it } from "vitest";
import { MessageStoreChatMessageHistory } from "../src/index.js";
import { reply, toolAgent } from "./support/agent.js";

describe.each(BRIDGE_BACKENDS)("MessageStoreChatMessageHistory on %s", (backend) => {
  const ctx = useBridgeStore(backend);
  const history = (
    sessionId: string,
    extra: { limit?: number; userId?: string; agentId?: string; pricing?: ModelPricing } = {},
  ) =>
    new MessageStoreChatMessageHistory({
      store: ctx.store,
      sessionId,
      userId: "u1",
      agentId: "lc-bot",
      ...extra,
    });

  it("prices each model call from the history's pricing map; without one the cost stays unknown", async () => {
    const answer = (model: string) =>
      new AIMessage({
        content: "Sunny.",
        usage_metadata: { input_tokens: 1000, output_tokens: 500, total_tokens: 1500 },
        response_metadata: { model_name: model },
      });
    const pricing = { "gpt-4.1": { input: 2e-6, output: 8e-6 } };
    const costs = async (sessionId: string) => {
      const records = (await ctx.store.getMessagesByConversationId(sessionId)).items;
      const trace = await ctx.store.getTurnTraceByMessageId(records.at(-1)!.id);
      return trace!.llmCalls.map((c) => c.costUsd);
    };
    const priced = newId();
    await history(priced, { pricing, agentId: "lc-priced" }).addMessages([
      new HumanMessage("Sky?"),
      answer("gpt-4.1"),
    ]);
    expect(await costs(priced)).toEqual([0.006]);
    const unlisted = newId();
    await history(unlisted, { pricing, agentId: "lc-priced" }).addMessages([
      new HumanMessage("Sky?"),
      answer("o3"),
    ]);
    expect(await costs(unlisted)).toEqual([null]);
    const unpriced = newId();
    await history(unpriced, { agentId: "lc-priced" }).addMessages([
      new HumanMessage("Sky?"),
      answer("gpt-4.1"),
    ]);
    expect(await costs(unpriced)).toEqual([null]);
    expect(() => history(newId(), { pricing: { "gpt-4.1": { input: -1, output: 0 } } })).toThrow(
      expect.objectContaining({ code: "VALIDATION" }),
    );
  });

  it("keeps a tool-calling conversation through RunnableWithMessageHistory, with turn traces", async () => {
    const { store } = ctx;
    const sessionId = newId();
    const { model, agent } = toolAgent([
      reply("", [20, 8], [{ id: "call-1", name: "weather", args: { city: "Paris" } }]),
      reply("Sunny in Paris, 21°C.", [40, 6]),
      reply("You're welcome!", [55, 4]),
    ]);
    const chain = new RunnableWithMessageHistory({
      runnable: agent,
      getMessageHistory: (id: string) => history(id),
    });
    const config = { configurable: { sessionId } };

    await chain.invoke([new HumanMessage("Weather in Paris?")], config);
    await chain.invoke([new HumanMessage("Thanks!")], config);

    // The second turn was answered from the stored history.
    expect(model.calls[2]!.messages.map((m) => m.type)).toEqual([
      "human",
      "ai",
      "tool",
      "ai",
      "human",
    ]);
    const loaded = await history(sessionId).getMessages();
    expect(loaded.map((m) => [m.type, m.text])).toEqual([
      ["human", "Weather in Paris?"],
      ["ai", ""],
      ["tool", '{"city":"Paris","sky":"sunny","temp":21}'],
      ["ai", "Sunny in Paris, 21°C."],
      ["human", "Thanks!"],
      ["ai", "You're welcome!"],
    ]);
    expect((loaded[1] as AIMessage).tool_calls).toEqual([
      { id: "call-1", name: "weather", args: { city: "Paris" }, type: "tool_call" },
    ]);
    expect((loaded[1] as AIMessage).usage_metadata).toEqual({
      input_tokens: 20,
      output_tokens: 8,
      total_tokens: 28,
    });
    expect(loaded[2]).toBeInstanceOf(ToolMessage);
    expect((loaded[2] as ToolMessage).tool_call_id).toBe("call-1");

    // Ordinary messages for every other tool.
    const records = (await store.getMessagesByConversationId(sessionId)).items;
    expect(records.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(records[1]!.toolCalls).toEqual([
      { toolCallId: "call-1", toolName: "weather", arguments: { city: "Paris" }, result: null },
    ]);
    expect(records[2]).toMatchObject({ toolCallId: "call-1", toolName: "weather" });
    expect(toModelMessages(records).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(toOpenAIChatMessages(records)[2]).toEqual({
      role: "tool",
      tool_call_id: "call-1",
      content: '{"city":"Paris","sky":"sunny","temp":21}',
    });

    // One trace per turn, on the answer that ended it.
    const first = await store.getTurnTraceByMessageId(records[3]!.id);
    expect(first).toMatchObject({ agentId: "lc-bot", userId: "u1", totalTokens: 28 + 46 });
    expect(first!.llmCalls.map((c) => [c.model, c.promptTokens, c.completionTokens])).toEqual([
      ["fake-gpt", 20, 8],
      ["fake-gpt", 40, 6],
    ]);
    expect(first!.totalLatencyMs).toBeGreaterThan(0);
    const usage = await store.summarizeUsage({
      agentId: "lc-bot",
      since: 0,
      until: Date.now() + 1,
      bucket: "day",
    });
    expect(usage[0]).toMatchObject({
      turns: 2,
      totalTokens: 74 + 59,
      promptTokens: 115,
      completionTokens: 18,
    });
  });

  it("loads only the newest messages with limit, never starting with a cut-off tool result", async () => {
    const sessionId = newId();
    await history(sessionId).addMessages([
      new SystemMessage("Be brief."),
      new HumanMessage("Weather?"),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "c1", name: "weather", args: {}, type: "tool_call" }],
      }),
      new ToolMessage({ content: "sunny", tool_call_id: "c1" }),
      new AIMessage("Sunny."),
    ]);
    expect((await history(sessionId, { limit: 2 }).getMessages()).map((m) => m.text)).toEqual([
      "Sunny.",
    ]);
    expect((await history(sessionId, { limit: 3 }).getMessages()).map((m) => m.type)).toEqual([
      "ai",
      "tool",
      "ai",
    ]);
    expect((await history(sessionId, { limit: 100 }).getMessages()).map((m) => m.type)).toEqual([
      "system",
      "human",
      "ai",
      "tool",
      "ai",
    ]);
    const records = (await ctx.store.getMessagesByConversationId(sessionId)).items;
    expect(records[3]).toMatchObject({ role: "tool", toolName: "weather" }); // named after its call
  });

  it("with limit, RunnableWithMessageHistory sends the window and stores each message once", async () => {
    const sessionId = newId();
    const { model, agent } = toolAgent([
      reply("", [20, 8], [{ id: "call-1", name: "weather", args: { city: "Paris" } }]),
      reply("Sunny.", [40, 6]),
      reply("Bye!", [50, 2]),
    ]);
    const chain = new RunnableWithMessageHistory({
      runnable: agent,
      getMessageHistory: (id: string) => history(id, { limit: 3 }),
    });
    const config = { configurable: { sessionId } };
    await chain.invoke([new HumanMessage("Weather in Paris?")], config);
    await chain.invoke([new HumanMessage("Thanks")], config);
    expect(model.calls[2]!.messages.map((m) => m.type)).toEqual(["ai", "tool", "ai", "human"]);
    const records = (await ctx.store.getMessagesByConversationId(sessionId)).items;
    expect(records.map((m) => m.originalContent)).toEqual([
      "Weather in Paris?",
      "",
      '{"city":"Paris","sky":"sunny","temp":21}',
      "Sunny.",
      "Thanks",
      "Bye!",
    ]);
  });

  it("adds all or nothing, and keeps sessions per user", async () => {
    const sessionId = newId();
    const mine = history(sessionId);
    await expect(
      mine.addMessages([new HumanMessage("hello"), new RemoveMessage({ id: "x" })]),
    ).rejects.toMatchObject({
      code: "VALIDATION",
      message: expect.stringContaining("[langchain]"),
    });
    expect(await mine.getMessages()).toEqual([]);

    await mine.addUserMessage("mine");
    await mine.addAIMessage("ok");
    const theirs = history(sessionId, { userId: "u2" });
    expect(await theirs.getMessages()).toEqual([]);
    await expect(theirs.addUserMessage("hijack")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await theirs.clear(); // not theirs to clear
    expect((await mine.getMessages()).map((m) => m.text)).toEqual(["mine", "ok"]);

    await mine.clear();
    expect(await mine.getMessages()).toEqual([]);
    // Clearing hides: the conversation and its messages stay for audit and usage analytics.
    expect(await ctx.store.getConversation(sessionId)).not.toBeNull();
    const cleared = (await ctx.store.getMessagesByConversationId(sessionId)).items;
    expect(cleared.map((m) => [m.originalContent, m.isFlagged])).toEqual([
      ["mine", true],
      ["ok", true],
    ]);
    await mine.addUserMessage("again");
    expect((await mine.getMessages()).map((m) => m.text)).toEqual(["again"]);
  });

  it("reads conversations written by other tools as LangChain messages", async () => {
    const { store } = ctx;
    const sessionId = newId();
    await store.storeConversation({ id: sessionId, userId: "u1" });
    const base = { conversationId: sessionId, userId: "u1", timestamp: 1_000 };
    await store.storeMessages([
      { ...base, id: newId(), role: "user", originalContent: "Find it" },
      {
        ...base,
        id: newId(),
        role: "assistant",
        originalContent: "Looking.",
        toolCalls: [
          { toolCallId: "s1", toolName: "search", arguments: { q: "it" } },
          { toolCallId: "s2", toolName: "cache", arguments: {}, result: { hit: true } },
        ],
      },
      {
        ...base,
        id: newId(),
        role: "tool",
        toolCallId: "s1",
        toolName: "search",
        originalContent: "found",
      },
    ]);
    const loaded = await history(sessionId).getMessages();
    expect(loaded.map((m) => m.type)).toEqual(["human", "ai", "tool", "tool"]);
    expect((loaded[1] as AIMessage).tool_calls?.map((c) => c.id)).toEqual(["s1", "s2"]);
    expect(loaded.slice(2).map((m) => [(m as ToolMessage).tool_call_id, m.text])).toEqual([
      ["s2", '{"hit":true}'],
      ["s1", "found"],
    ]);
  });
});
