import { OpenTelemetry } from "@ai-sdk/otel";
import { MessageStore, type MessageStoreApi, newId, type TurnTrace } from "@message-store/core";
import "@message-store/core/memory";
import { MessageStoreSpanExporter } from "@message-store/otel";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { messageStoreTelemetry } from "../src/index.js";
import { type TelemetryStep, telemetryModel } from "./support/telemetry-model.js";

const weather = tool({
  description: "Current weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    if (city === "Atlantis") throw new Error("no weather under the sea");
    return { city, temp: 21 };
  },
});

async function storeWithTurn(conversationId: string, messageId: string): Promise<MessageStoreApi> {
  const store = await MessageStore.initialize({ storage: "memory" });
  await store.storeSessionMessages(
    conversationId,
    [
      { role: "user", content: "weather?" },
      { role: "assistant", content: "…", id: messageId } as never,
    ],
    { userId: "u1" },
  );
  return store;
}

/** What both ways must agree on: everything but ids, the source and the timings. */
function shape(trace: TurnTrace | null) {
  expect(trace).not.toBeNull();
  const { id: _id, timestamp, totalLatencyMs, metadata, llmCalls, toolTraces, ...rest } = trace!;
  expect(timestamp).toBeGreaterThan(0);
  expect(totalLatencyMs).toBeGreaterThanOrEqual(0);
  return {
    ...rest,
    finishReasons: metadata.finishReasons,
    llmCalls: llmCalls.map(({ latencyMs, startedAt, ...c }) => {
      expect(latencyMs).toBeGreaterThanOrEqual(0);
      expect(Math.abs(startedAt! - timestamp)).toBeLessThan(5_000);
      return c;
    }),
    toolTraces: [...toolTraces]
      .map(({ durationMs, ...t }) => {
        expect(durationMs).toBeGreaterThanOrEqual(0);
        return t;
      })
      .sort((a, b) => JSON.stringify(a.input).localeCompare(JSON.stringify(b.input))),
  };
}

const SCRIPT: TelemetryStep[] = [
  {
    toolCalls: [
      { id: "c1", name: "weather", input: { city: "Paris" } },
      { id: "c2", name: "weather", input: { city: "Atlantis" } },
    ],
    usage: [30, 12],
    modelId: "mock-model-2025-01",
  },
  { text: "Sunny in Paris.", usage: [60, 9] },
];

describe.each(["generateText", "streamText"] as const)(
  "%s: the integration and @ai-sdk/otel spans through the exporter store the same trace",
  (kind) => {
    it("for the same run", async () => {
      const conversationId = newId();
      const messageId = newId();
      const direct = await storeWithTurn(conversationId, messageId);
      const viaSpans = await storeWithTurn(conversationId, messageId);
      const exporter = new MessageStoreSpanExporter(viaSpans);
      const provider = new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(exporter as never)],
      });
      const telemetry = messageStoreTelemetry(direct);
      const link = { conversationId, messageId, userId: "u1", agentId: "weather-bot" };
      const options = {
        model: telemetryModel(SCRIPT),
        prompt: "weather?",
        tools: { weather },
        stopWhen: stepCountIs(3),
        runtimeContext: link,
        telemetry: {
          integrations: [
            new OpenTelemetry({ tracer: provider.getTracer("app"), runtimeContext: true }),
            telemetry,
          ],
          includeRuntimeContext: {
            conversationId: true,
            messageId: true,
            userId: true,
            agentId: true,
          },
        },
      };
      if (kind === "generateText") await generateText(options);
      else await streamText(options).consumeStream();
      await provider.forceFlush();
      await Promise.all([telemetry.flush(), exporter.forceFlush()]);

      const a = await direct.getTurnTraceByMessageId(messageId);
      const b = await viaSpans.getTurnTraceByMessageId(messageId);
      expect(a!.metadata.source).toBe("ai-sdk-telemetry");
      expect(b!.metadata.source).toBe("opentelemetry");
      expect(shape(b)).toEqual(shape(a));
      expect(shape(a)).toMatchObject({
        agentId: "weather-bot",
        totalTokens: 111,
        finishReasons: ["tool-calls", "stop"],
        llmCalls: [{ model: "mock-model-2025-01" }, { model: "mock-model" }],
        toolTraces: [
          {
            toolName: "weather",
            input: { city: "Atlantis" },
            traceback: "no weather under the sea",
          },
          { toolName: "weather", input: { city: "Paris" }, finalData: { city: "Paris", temp: 21 } },
        ],
      });
      // Timings agree to within the events' and spans' own clocks.
      expect(Math.abs(a!.timestamp - b!.timestamp)).toBeLessThan(50);
      expect(exporter.stats).toMatchObject({ stored: 1, unattributed: 0, badSpans: 0 });
      await provider.shutdown();
    });
  },
);
