import { newId, toModelMessages, toOpenAIChatMessages } from "@message-store/core";
import { BRIDGE_BACKENDS, useBridgeStore } from "@message-store/test-servers/bridge";
import { type AgentInputItem, MemorySession, run } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { MessageStoreSession } from "../src/index.js";
import { twoTurnScript, weatherAgent } from "./support/agent.js";

describe.each(BRIDGE_BACKENDS)("MessageStoreSession on %s", (backend) => {
  const ctx = useBridgeStore(backend);
  const session = (sessionId = newId(), userId = "u1") =>
    new MessageStoreSession({
      store: ctx.store,
      sessionId,
      userId,
      agentId: "agents-bot",
      model: "gpt-test",
    });

  it("carries a tool-calling conversation across run() turns, like the SDK's MemorySession", async () => {
    const { store } = ctx;
    const ours = session();
    const { model, agent } = weatherAgent(twoTurnScript());
    const first = await run(agent, "Weather in Paris?", { session: ours });
    expect(first.finalOutput).toBe("Sunny in Paris, 21°C.");
    const second = await run(agent, "Thanks!", { session: ours });
    expect(second.finalOutput).toBe("Bye!");

    // The SDK's in-memory session, same script: the model must have seen the same inputs.
    const reference = weatherAgent(twoTurnScript());
    const memory = new MemorySession();
    await run(reference.agent, "Weather in Paris?", { session: memory });
    await run(reference.agent, "Thanks!", { session: memory });
    expect(model.calls.map((c) => c.request.input)).toEqual(
      reference.model.calls.map((c) => c.request.input),
    );
    expect(await ours.getItems()).toEqual(await memory.getItems());
    expect(await ours.getItems(3)).toEqual(await memory.getItems(3));

    // Ordinary messages for every other tool.
    const records = (await store.getMessagesByConversationId(ours.sessionId)).items;
    expect(records.map((m) => [m.role, m.originalContent])).toEqual([
      ["user", "Weather in Paris?"],
      ["assistant", ""],
      ["tool", '{"city":"Paris","sky":"sunny","temp":21}'],
      ["assistant", "Sunny in Paris, 21°C."],
      ["user", "Thanks!"],
      ["assistant", "Bye!"],
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
    expect(toOpenAIChatMessages(records)[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call-1",
          type: "function",
          function: { name: "weather", arguments: '{"city":"Paris"}' },
        },
      ],
    });

    // One trace per run, on its final answer.
    const trace = await store.getTurnTraceByMessageId(records[3]!.id);
    expect(trace).toMatchObject({ agentId: "agents-bot", userId: "u1", totalTokens: 28 + 46 });
    expect(trace!.llmCalls.map((c) => [c.model, c.promptTokens, c.completionTokens])).toEqual([
      ["gpt-test", 20, 8],
      ["gpt-test", 40, 6],
    ]);
    expect(trace!.totalLatencyMs).toBeGreaterThan(0);
    expect(await store.getTurnTraceByMessageId(records[5]!.id)).toMatchObject({ totalTokens: 59 });
    const usage = await store.summarizeUsage({
      agentId: "agents-bot",
      since: 0,
      until: Date.now() + 1,
      bucket: "day",
    });
    expect(usage[0]).toMatchObject({
      turns: 2,
      totalTokens: 133,
      promptTokens: 115,
      completionTokens: 18,
    });
  });

  it("stores reasoning and other items with their message; getItems, popItem and limits count items", async () => {
    const ours = session();
    const items: AgentInputItem[] = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "Plan a trip" }] },
      { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "Need flights." }] },
      {
        type: "function_call",
        callId: "f1",
        name: "flights",
        arguments: '{"to":"NYC"}',
        status: "completed",
      },
      {
        type: "function_call_result",
        callId: "f1",
        name: "flights",
        status: "completed",
        output: "AF1",
      },
      {
        type: "reasoning",
        id: "rs_2",
        content: [],
        rawContent: [{ type: "reasoning_text", text: "Book AF1." }],
      },
      {
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Take AF1." }],
      },
    ];
    await ours.addItems(items);
    expect(await ours.getItems()).toEqual(items);
    expect(await ours.getItems(2)).toEqual(items.slice(-2));
    expect(await ours.getItems(0)).toEqual([]);

    const records = (await ctx.store.getMessagesByConversationId(ours.sessionId)).items;
    expect(records.map((m) => [m.role, m.originalContent, m.reasoningSteps])).toEqual([
      ["user", "Plan a trip", []],
      ["assistant", "", ["Need flights."]],
      ["tool", "AF1", []],
      ["assistant", "Take AF1.", ["Book AF1."]],
    ]);

    expect(await ours.popItem()).toEqual(items[5]);
    expect(await ours.getItems()).toEqual(items.slice(0, 5));
    expect(await ours.popItem()).toEqual(items[4]);
    expect(await ours.getItems()).toEqual(items.slice(0, 4));
    const after = (await ctx.store.getMessagesByConversationId(ours.sessionId)).items;
    expect(after.map((m) => m.isFlagged)).toEqual([false, false, false, true]); // kept for audit
    expect(after[3]).toMatchObject({ originalContent: "", reasoningSteps: ["Book AF1."] });

    await ours.clearSession();
    expect(await ours.getItems()).toEqual([]);
    expect(await ours.popItem()).toBeUndefined();
    // The conversation and its messages stay, hidden: clearing is not erasure.
    expect(await ctx.store.getConversation(ours.sessionId)).not.toBeNull();
    const cleared = (await ctx.store.getMessagesByConversationId(ours.sessionId)).items;
    expect(cleared.map((m) => m.isFlagged)).toEqual([true, true, true, true]);
    expect(cleared.map((m) => (m.metadata["openai-agents"] as { hidden?: string }).hidden)).toEqual(
      ["cleared", "cleared", "cleared", "popped"],
    );
  });

  it("keeps sessions per user and reads conversations written by other tools", async () => {
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
          { toolCallId: "s1", toolName: "search", arguments: { q: "it" }, result: { hit: true } },
        ],
      },
    ]);
    expect(await session(sessionId).getItems()).toEqual([
      { type: "message", role: "user", content: "Find it" },
      {
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Looking." }],
      },
      {
        type: "function_call",
        callId: "s1",
        name: "search",
        status: "completed",
        arguments: '{"q":"it"}',
      },
      {
        type: "function_call_result",
        callId: "s1",
        name: "search",
        status: "completed",
        output: { type: "text", text: '{"hit":true}' },
      },
    ]);
    const theirs = session(sessionId, "u2");
    expect(await theirs.getItems()).toEqual([]);
    expect(await theirs.popItem()).toBeUndefined();
    await expect(theirs.addItems([{ role: "user", content: "hi" }])).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await theirs.clearSession();
    expect(await session(sessionId).getItems()).toHaveLength(4);
  });
});
