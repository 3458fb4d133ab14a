import { OpenTelemetry } from "@ai-sdk/otel";
import { context, trace as otelTrace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { generateText, stepCountIs, tool } from "ai";
import * as ai6 from "ai-v6";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { LINK_ATTRIBUTE, MessageStoreSpanExporter } from "../src/index.js";
import { scripted, WEATHER_SCRIPT, weatherOf } from "./support/mock-models.js";
import { storeWithTurn } from "./support/stores.js";

const input = z.object({ city: z.string() });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  // ai 6 nests its spans through the active context, as an app's NodeSDK sets it up.
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  contextManager.disable();
  context.disable();
});

/** The spans of one run, collected as the SDK would hand them to an exporter. */
async function spansOf(run: (provider: BasicTracerProvider) => Promise<unknown>) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  await run(provider);
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

async function ai7Run(link: Record<string, string>) {
  return spansOf(async (provider) => {
    const tracer = provider.getTracer("app");
    // The app names the turn on its own span; the AI SDK's spans nest under it.
    await tracer.startActiveSpan(
      "handle chat request",
      {
        attributes: {
          [LINK_ATTRIBUTE.conversationId]: link.conversationId!,
          [LINK_ATTRIBUTE.messageId]: link.messageId!,
          [LINK_ATTRIBUTE.agentId]: "weather-bot",
        },
      },
      async (span) => {
        await generateText({
          model: scripted(7, WEATHER_SCRIPT),
          prompt: "weather?",
          tools: { weather: tool({ inputSchema: input, execute: weatherOf }) },
          stopWhen: stepCountIs(3),
          telemetry: { integrations: new OpenTelemetry({ tracer }) },
        });
        span.end();
      },
    );
  });
}

async function ai6Run(link: Record<string, string>) {
  return spansOf(async (provider) => {
    await ai6.generateText({
      model: scripted(6, WEATHER_SCRIPT),
      prompt: "weather?",
      tools: { weather: ai6.tool({ inputSchema: input, execute: weatherOf }) },
      stopWhen: ai6.stepCountIs(3),
      experimental_telemetry: {
        isEnabled: true,
        functionId: "weather-bot",
        tracer: provider.getTracer("ai6"),
        metadata: link,
      },
    });
  });
}

async function exportAll(exporter: MessageStoreSpanExporter, batches: ReadableSpan[][]) {
  for (const batch of batches) {
    const result = await new Promise<{ code: number }>((resolve) =>
      exporter.export(batch, resolve),
    );
    expect(result.code).toBe(0);
  }
  await exporter.forceFlush();
}

describe.each([
  ["ai 7 through @ai-sdk/otel, linked by message_store.* on the app's span", ai7Run],
  ["ai 6 through experimental_telemetry, linked by its metadata", ai6Run],
] as const)("%s", (_, run) => {
  it("stores one trace per turn with models, tokens, tools and the failed tool", async () => {
    const { store, conversationId, messageId } = await storeWithTurn();
    const spans = await run({ conversationId, messageId });
    const exporter = new MessageStoreSpanExporter(store);
    await exportAll(exporter, [spans]);
    const trace = await store.getTurnTraceByMessageId(messageId);
    expect(trace).toMatchObject({
      conversationId,
      agentId: "weather-bot",
      userId: "u1",
      totalTokens: 111,
      metadata: { source: "opentelemetry", finishReasons: ["tool-calls", "stop"] },
    });
    expect(trace!.llmCalls.map((c) => [c.model, c.promptTokens, c.completionTokens])).toEqual([
      ["mock-model-2025-01", 30, 12],
      ["mock-model", 60, 9],
    ]);
    const tools = [...trace!.toolTraces].sort((a, b) => a.durationMs! - b.durationMs! || 0);
    expect(tools.map((t) => t.toolName)).toEqual(["weather", "weather"]);
    const paris = trace!.toolTraces.find((t) => (t.input as { city: string }).city === "Paris");
    const atlantis = trace!.toolTraces.find(
      (t) => (t.input as { city: string }).city === "Atlantis",
    );
    expect(paris).toMatchObject({ finalData: { city: "Paris", temp: 21 }, traceback: null });
    expect(atlantis).toMatchObject({ finalData: null, traceback: "no weather under the sea" });
    expect(exporter.stats).toMatchObject({ stored: 1, unattributed: 0, badSpans: 0, badValues: 0 });
  });

  it("assembles spans out of order and split across batches; a retried export changes nothing", async () => {
    const a = await storeWithTurn();
    const spans = await run({ conversationId: a.conversationId, messageId: a.messageId });
    const inOrder = new MessageStoreSpanExporter(a.store);
    await exportAll(inOrder, [spans]);
    const expected = await a.store.getTurnTraceByMessageId(a.messageId);

    const b = await storeWithTurn({ conversationId: a.conversationId, messageId: a.messageId });
    const shuffled = new MessageStoreSpanExporter(b.store);
    const reversed = [...spans].reverse();
    const half = Math.ceil(reversed.length / 2);
    await exportAll(shuffled, [reversed.slice(0, half), reversed.slice(half), reversed]);
    const got = await b.store.getTurnTraceByMessageId(a.messageId);
    expect({ ...got, id: "x" }).toEqual({ ...expected, id: "x" });
    expect(shuffled.stats.spans).toBe(spans.length);
  });

  it("a turn with no conversation or message is counted and dropped", async () => {
    const { store } = await storeWithTurn();
    const spans = await run({});
    const exporter = new MessageStoreSpanExporter(store);
    await exportAll(exporter, [spans]);
    expect(exporter.stats).toMatchObject({ unattributed: 1, stored: 0 });
  });
});

it("a span of the app's own (no GenAI spans in its trace) is not a turn", async () => {
  const { store } = await storeWithTurn();
  const spans = await spansOf(async (provider) => {
    provider.getTracer("app").startSpan("GET /health").end();
  });
  const exporter = new MessageStoreSpanExporter(store);
  await exportAll(exporter, [spans]);
  expect(exporter.stats).toMatchObject({ spans: 1, unattributed: 0, stored: 0 });
  expect(otelTrace).toBeDefined();
});
