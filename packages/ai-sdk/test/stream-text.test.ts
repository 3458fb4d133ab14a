import {
  newId,
  toModelMessages,
  toOpenAIChatMessages,
  type ValidationError,
} from "@message-store/core";
import { useBridgeStore } from "@message-store/test-servers/bridge";
import { type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadModelMessages, saveModelMessages } from "../src/index.js";
import { AI_MAJOR, BACKENDS, responseMessagesOf } from "./support/ai-major.js";
import { scriptedModel } from "./support/mock-model.js";

const weather = tool({
  description: "Current weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: city === "Paris" ? "sunny" : "rain", temp: 21 }),
});

describe.each(BACKENDS)("streamText turns on %s", (backend) => {
  const ctx = useBridgeStore(backend);

  it("persists a multi-step tool-calling turn, reloads it and continues from the store", async () => {
    const { store } = ctx;
    const conversationId = newId();
    const model = scriptedModel([
      {
        reasoning: "The user wants the weather; call the tool.",
        text: "Let me check.",
        toolCalls: [{ id: "call-1", name: "weather", input: { city: "Paris" } }],
        usage: [30, 12],
        modelId: "mock-model-2025-01",
      },
      { text: "It is sunny in Paris, 21°C.", usage: [60, 9] },
      { text: "In Lyon it rains.", toolCalls: [], usage: [90, 6] },
    ]);

    // Turn 1: a fresh conversation.
    const prompt: ModelMessage = { role: "user", content: "What's the weather in Paris?" };
    const startedAt = Date.now() - 5; // latency on ai 5/6 is wall clock from here
    const first = streamText({
      model,
      messages: [prompt],
      tools: { weather },
      stopWhen: stepCountIs(5),
    });
    await first.consumeStream();
    const saved = await saveModelMessages(store, {
      conversationId,
      userId: "u1",
      agentId: "weather-bot",
      messages: [prompt],
      result: first,
      startedAt,
    });
    expect(saved.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(saved.messages[1]).toMatchObject({
      originalContent: "Let me check.",
      reasoningSteps: ["The user wants the weather; call the tool."],
      toolCalls: [{ toolCallId: "call-1", toolName: "weather", arguments: { city: "Paris" } }],
    });
    expect(JSON.parse(saved.messages[2]!.originalContent)).toEqual({
      city: "Paris",
      sky: "sunny",
      temp: 21,
    });
    expect(saved.trace).toMatchObject({
      messageId: saved.messages[3]!.id,
      agentId: "weather-bot",
      userId: "u1",
      totalTokens: 30 + 12 + 60 + 9,
      llmCalls: [
        {
          purpose: "agent_loop",
          model: "mock-model-2025-01",
          promptTokens: 30,
          completionTokens: 12,
        },
        { purpose: "agent_loop", model: "mock-model", promptTokens: 60, completionTokens: 9 },
      ],
    });
    // The tool the SDK ran is a tool run of the turn, with its output.
    expect(saved.trace!.toolTraces).toMatchObject([
      {
        toolName: "weather",
        finalData: { city: "Paris", sky: "sunny", temp: 21 },
        outputBytes: JSON.stringify({ city: "Paris", sky: "sunny", temp: 21 }).length,
      },
    ]);
    if (AI_MAJOR >= 7) expect(saved.trace!.toolTraces[0]!.durationMs).toBeGreaterThanOrEqual(0);
    else expect(saved.trace!.toolTraces[0]!.durationMs).toBeNull();
    expect(saved.trace!.totalLatencyMs).toBeGreaterThan(0);
    expect(saved.trace!.llmCalls.every((c) => c.latencyMs > 0)).toBe(true);
    if (AI_MAJOR >= 7) {
      // measured per step by the SDK: each call's response time is part of the turn's total
      const calls = saved.trace!.llmCalls.reduce((sum, c) => sum + c.latencyMs, 0);
      expect(calls).toBeLessThanOrEqual(saved.trace!.totalLatencyMs);
    } else {
      expect(saved.trace!.totalLatencyMs).toBeGreaterThanOrEqual(5);
    }
    expect(await store.getConversation(conversationId)).toMatchObject({
      userId: "u1",
      agentId: "weather-bot",
    });

    // Turn 2: continue from what the store holds, not from memory.
    const history = await loadModelMessages(store, conversationId, { limit: 50 });
    const followUp: ModelMessage = { role: "user", content: "And in Lyon?" };
    const second = streamText({ model, messages: [...history, followUp], tools: { weather } });
    await second.consumeStream();
    expect(model.doStreamCalls).toHaveLength(3);
    const sent = model.doStreamCalls[2]!.prompt;
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[2]).toMatchObject({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "call-1",
          output: { type: "json", value: { sky: "sunny" } },
        },
      ],
    });
    await saveModelMessages(store, {
      conversationId,
      userId: "u1",
      agentId: "weather-bot",
      messages: [followUp],
      result: second,
    });

    // The whole conversation reads back through core's replay functions.
    const context = await store.getImmediateContext(conversationId, 50);
    expect(context.map((m) => m.originalContent).at(-1)).toBe("In Lyon it rains.");
    // What the bridge saved comes back as saved; core's replay reads the same turns.
    const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(history).toEqual(asJson([prompt, ...(await responseMessagesOf(first))]));
    expect(await loadModelMessages(store, conversationId, { limit: 50 })).toEqual(
      asJson([...history, followUp, ...(await responseMessagesOf(second))]),
    );
    expect(toModelMessages(context).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    const openai = toOpenAIChatMessages(context);
    expect(openai.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(openai[1]).toMatchObject({
      tool_calls: [{ id: "call-1", function: { name: "weather", arguments: '{"city":"Paris"}' } }],
    });

    // Both turns are in the usage analytics.
    const usage = await store.summarizeUsage({
      agentId: "weather-bot",
      since: 0,
      until: Date.now() + 1,
      bucket: "day",
    });
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      turns: 2,
      totalTokens: 111 + 96,
      promptTokens: 180,
      completionTokens: 27,
    });
  });

  it("appends after the newest stored message and refuses another user's conversation", async () => {
    const { store } = ctx;
    const conversationId = newId();
    const future = Date.now() + 60_000;
    await store.storeConversation({ id: conversationId, userId: "u1" });
    await store.storeMessage({
      id: newId(),
      conversationId,
      userId: "u1",
      role: "user",
      originalContent: "early",
      timestamp: future,
    });
    const { messages } = await saveModelMessages(store, {
      conversationId,
      userId: "u1",
      messages: [{ role: "assistant", content: "later" }],
    });
    expect(messages[0]!.timestamp).toBe(future + 1); // strictly after the newest activity
    const context = await store.getImmediateContext(conversationId, 10);
    expect(context.map((m) => m.originalContent)).toEqual(["early", "later"]);

    await expect(
      saveModelMessages(store, {
        conversationId,
        userId: "intruder",
        messages: [{ role: "user", content: "hi" }],
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await store.getImmediateContext(conversationId, 10)).toHaveLength(2);
  });

  it("prices the trace's calls from the pricing map; without one the cost stays unknown", async () => {
    const { store } = ctx;
    const steps = [
      {
        usage: { inputTokens: 1000, outputTokens: 500 },
        response: { modelId: "gpt-4.1-2025-04-14" },
      },
    ];
    const turn = (pricing?: { [model: string]: { input: number; output: number } }) =>
      saveModelMessages(store, {
        conversationId: newId(),
        userId: "u1",
        messages: [
          { role: "user", content: "Sky?" },
          { role: "assistant", content: "Blue." },
        ],
        steps,
        ...(pricing ? { pricing } : {}),
      });
    const priced = await turn({ "gpt-4.1": { input: 2e-6, output: 8e-6 } });
    expect(priced.trace!.llmCalls.map((c) => c.costUsd)).toEqual([0.006]);
    const unpriced = await turn();
    expect(unpriced.trace!.llmCalls.map((c) => c.costUsd)).toEqual([null]);
    const conversationId = newId();
    await expect(
      saveModelMessages(store, {
        conversationId,
        userId: "u1",
        messages: [{ role: "user", content: "Sky?" }],
        pricing: { "gpt-4.1": { input: -1, output: 0 } },
      }),
    ).rejects.toMatchObject({ code: "VALIDATION" });
    expect(await store.getConversation(conversationId)).toBeNull(); // refused before any write
  });

  it("refuses a message that is not a ModelMessage with a ValidationError and stores nothing of the turn", async () => {
    const { store } = ctx;
    const conversationId = newId();
    const bad = [
      { message: { role: "robot", content: "beep" }, field: "role", says: /role must be one of/ },
      { message: { role: "user", content: 42 }, field: "content", says: /must be a string/ },
      { message: { role: "system", content: [] }, field: "content", says: /must be a string/ },
      { message: { role: "tool", content: "done" }, field: "content", says: /array of parts/ },
      { message: null, field: undefined, says: /expected an object/ },
    ];
    for (const { message, field, says } of bad) {
      const attempt = saveModelMessages(store, {
        conversationId,
        userId: "u1",
        messages: [{ role: "user", content: "first" }, message as unknown as ModelMessage],
      });
      await expect(attempt).rejects.toMatchObject({
        code: "VALIDATION",
        message: expect.stringMatching(says),
      });
      const error = (await attempt.catch((e: unknown) => e)) as ValidationError;
      expect(error.issues[0]!.path).toEqual(field ? ["messages", 1, field] : ["messages", 1]);
    }
    // A part that is not a typed object is refused too.
    await expect(
      saveModelMessages(store, {
        conversationId,
        userId: "u1",
        messages: [{ role: "user", content: ["hi"] } as unknown as ModelMessage],
      }),
    ).rejects.toMatchObject({ code: "VALIDATION" });
    expect(await store.getConversation(conversationId)).toBeNull();
  });
});
