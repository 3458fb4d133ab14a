import { MessageStore, newId } from "@message-store/core";
import "@message-store/core/memory";
import { generateText, registerTelemetry, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { messageStoreTelemetry } from "../src/index.js";
import { telemetryModel } from "./support/telemetry-model.js";

const weather = tool({
  description: "Current weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    if (city === "Atlantis") throw new Error("no weather under the sea");
    return { city, temp: 21 };
  },
});

let store: Awaited<ReturnType<typeof MessageStore.initialize>>;
const userId = "user-1";

async function assistantMessage(conversationId: string, id = newId()) {
  await store.storeSessionMessages(
    conversationId,
    [{ role: "assistant", content: "done", id } as never],
    { userId },
  );
  return id;
}

/** A conversation with a user message, and the id its assistant message will get. */
async function turn() {
  const conversationId = newId();
  await store.storeSessionMessages(conversationId, [{ role: "user", content: "weather?" }], {
    userId,
  });
  return { conversationId, messageId: newId(), userId };
}

beforeEach(async () => {
  store = await MessageStore.initialize({ storage: "memory" });
});

afterAll(() => {
  globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = undefined;
});

describe("messageStoreTelemetry", () => {
  it("stores one trace per multi-step run: models, tokens, tools with input and output, a failed tool", async () => {
    const link = await turn();
    const telemetry = messageStoreTelemetry(store, { ...link, agentId: "weather-bot" });
    const result = await generateText({
      model: telemetryModel([
        {
          toolCalls: [
            { id: "c1", name: "weather", input: { city: "Paris" } },
            { id: "c2", name: "weather", input: { city: "Atlantis" } },
          ],
          usage: [30, 12],
          modelId: "mock-model-2025-01",
        },
        { text: "Sunny in Paris.", usage: [60, 9] },
      ]),
      prompt: "weather?",
      tools: { weather },
      stopWhen: stepCountIs(3),
      telemetry: { integrations: telemetry },
    });
    expect(result.text).toBe("Sunny in Paris.");
    await assistantMessage(link.conversationId, link.messageId);
    await telemetry.flush();
    const trace = await store.getTurnTraceByMessageId(link.messageId);
    expect(trace).toMatchObject({
      conversationId: link.conversationId,
      agentId: "weather-bot",
      userId,
      totalTokens: 111,
      metadata: { source: "ai-sdk-telemetry", finishReasons: ["tool-calls", "stop"] },
      errors: [],
    });
    expect(trace!.llmCalls.map((c) => [c.model, c.promptTokens, c.completionTokens])).toEqual([
      ["mock-model-2025-01", 30, 12],
      ["mock-model", 60, 9],
    ]);
    expect(trace!.llmCalls[0]!.startedAt).toBeLessThanOrEqual(trace!.llmCalls[1]!.startedAt!);
    expect(trace!.llmCalls.every((c) => c.costUsd === null)).toBe(true);
    const byInput = Object.fromEntries(
      trace!.toolTraces.map((t) => [(t.input as { city: string }).city, t]),
    );
    expect(byInput.Paris).toMatchObject({
      toolName: "weather",
      finalData: { city: "Paris", temp: 21 },
      traceback: null,
    });
    expect(byInput.Paris!.outputBytes).toBe(JSON.stringify({ city: "Paris", temp: 21 }).length);
    expect(byInput.Atlantis).toMatchObject({
      finalData: null,
      traceback: "no weather under the sea",
    });
    expect(trace!.totalLatencyMs).toBeGreaterThanOrEqual(0);
    expect(telemetry.stats).toMatchObject({ stored: 1, pending: 0, dropped: 0, failed: 0 });
  });

  it("records a failed model call and the run's error; the app's call still fails as it would", async () => {
    const link = await turn();
    await assistantMessage(link.conversationId, link.messageId);
    const telemetry = messageStoreTelemetry(store, link);
    await expect(
      generateText({
        model: telemetryModel([{ fail: "provider down" }]),
        prompt: "weather?",
        maxRetries: 0,
        telemetry: { integrations: telemetry },
      }),
    ).rejects.toThrow("provider down");
    await telemetry.flush();
    const trace = await store.getTurnTraceByMessageId(link.messageId);
    expect(trace!.llmCalls).toMatchObject([{ model: "mock-model", error: "provider down" }]);
    expect(trace!.errors).toEqual([{ type: "error", message: "provider down" }]);
    expect(trace!.agentId).toBe("default");
  });

  it("traces a streamText run once its stream is consumed", async () => {
    const link = await turn();
    await assistantMessage(link.conversationId, link.messageId);
    const telemetry = messageStoreTelemetry(store, link);
    const result = streamText({
      model: telemetryModel([
        { toolCalls: [{ id: "c1", name: "weather", input: { city: "Paris" } }], usage: [5, 2] },
        { text: "Sunny.", usage: [8, 3], modelId: "mock-model-v2" },
      ]),
      prompt: "weather?",
      tools: { weather },
      stopWhen: stepCountIs(3),
      telemetry: { integrations: telemetry, functionId: "streamer" },
    });
    expect(await result.text).toBe("Sunny.");
    await telemetry.flush();
    const trace = await store.getTurnTraceByMessageId(link.messageId);
    expect(trace!.agentId).toBe("streamer");
    expect(trace!.llmCalls.map((c) => c.model)).toEqual(["mock-model", "mock-model-v2"]);
    expect(trace!.toolTraces.map((t) => [t.toolName, t.input])).toEqual([
      ["weather", { city: "Paris" }],
    ]);
    expect(trace!.totalTokens).toBe(18);
  });

  it("registered once, links each run from its runtime context", async () => {
    const telemetry = messageStoreTelemetry(store);
    registerTelemetry(telemetry);
    try {
      const a = await turn();
      const b = await turn();
      for (const link of [a, b]) {
        await assistantMessage(link.conversationId, link.messageId);
        await generateText({
          model: telemetryModel([{ text: "hi", usage: [1, 1] }]),
          prompt: "hello",
          runtimeContext: link,
          telemetry: {
            includeRuntimeContext: { conversationId: true, messageId: true, userId: true },
          },
        });
      }
      await telemetry.flush();
      for (const link of [a, b]) {
        expect(await store.getTurnTraceByMessageId(link.messageId)).toMatchObject({
          conversationId: link.conversationId,
          userId,
          totalTokens: 2,
        });
      }
    } finally {
      globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = undefined;
    }
  });

  it("a store error goes to onError, never into the app's call", async () => {
    const link = await turn();
    await assistantMessage(link.conversationId, link.messageId);
    const errors: unknown[] = [];
    const telemetry = messageStoreTelemetry(store, { ...link, onError: (e) => errors.push(e) });
    await store.close();
    const result = await generateText({
      model: telemetryModel([{ text: "still fine", usage: [1, 1] }]),
      prompt: "hello",
      telemetry: { integrations: telemetry },
    });
    expect(result.text).toBe("still fine");
    await telemetry.flush();
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).name).toBe("StoreClosedError");
    expect(telemetry.stats.failed).toBe(1);
  });

  it("a trace whose message never comes waits, bounded, and is dropped and counted", async () => {
    const link = await turn();
    const errors: unknown[] = [];
    const telemetry = messageStoreTelemetry(store, {
      ...link,
      waitMs: 50,
      retryIntervalMs: 10,
      onError: (e) => errors.push(e),
    });
    await generateText({
      model: telemetryModel([{ text: "x", usage: [1, 1] }]),
      prompt: "hello",
      telemetry: { integrations: telemetry },
    });
    await telemetry.flush();
    expect(telemetry.stats).toMatchObject({ pending: 1, stored: 0 });
    await new Promise((r) => setTimeout(r, 120));
    await telemetry.flush();
    expect(telemetry.stats).toMatchObject({ pending: 0, dropped: 1, stored: 0 });
    expect(String(errors[0])).toMatch(/was not stored within 50 ms/);
  });

  it("with storeMessages, stores the response messages and attaches the trace to the last assistant one", async () => {
    const { conversationId } = await turn();
    const telemetry = messageStoreTelemetry(store, { conversationId, userId, storeMessages: true });
    await generateText({
      model: telemetryModel([
        { toolCalls: [{ id: "c1", name: "weather", input: { city: "Paris" } }], usage: [5, 2] },
        { text: "Sunny.", usage: [8, 3] },
      ]),
      prompt: "weather?",
      tools: { weather },
      stopWhen: stepCountIs(3),
      telemetry: { integrations: telemetry },
    });
    await telemetry.flush();
    const page = await store.getMessagesByConversationId(conversationId);
    const last = page.items.at(-1)!;
    expect(last.role).toBe("assistant");
    expect(JSON.stringify(last)).toContain("Sunny.");
    const trace = await store.getTurnTraceByMessageId(last.id);
    expect(trace!.llmCalls).toHaveLength(2);
    expect(trace!.toolTraces[0]!.finalData).toEqual({ city: "Paris", temp: 21 });
  });
});
