import { OpenTelemetry } from "@ai-sdk/otel";
import type { TurnTrace } from "@message-store/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { generateText, stepCountIs, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  MessageStoreSpanExporter,
  OtlpExportError,
  otlpTracesUrl,
  sendOtlpSpans,
  turnTraceToSpans,
} from "../src/index.js";
import { scripted, WEATHER_SCRIPT, weatherOf } from "./support/mock-models.js";
import { asSpanLike, startOtlpReceiver } from "./support/otlp-receiver.js";
import { storeWithTurn } from "./support/stores.js";

const receivers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A stored trace of a real ai 7 run, assembled from @ai-sdk/otel's spans. */
async function storedRun() {
  const turn = await storeWithTurn();
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  await generateText({
    model: scripted(7, WEATHER_SCRIPT),
    prompt: "weather?",
    tools: { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: weatherOf }) },
    stopWhen: stepCountIs(3),
    runtimeContext: { conversationId: turn.conversationId, messageId: turn.messageId },
    telemetry: {
      functionId: "weather-bot",
      integrations: new OpenTelemetry({ tracer: provider.getTracer("app"), runtimeContext: true }),
      includeRuntimeContext: { conversationId: true, messageId: true },
    },
  });
  const exporter = new MessageStoreSpanExporter(turn.store);
  exporter.export(memory.getFinishedSpans(), () => {});
  await exporter.forceFlush();
  return { ...turn, trace: (await turn.store.getTurnTraceByMessageId(turn.messageId))! };
}

/** What a round trip keeps: models, token counts, tool names and input/output, timings. */
function kept(trace: TurnTrace) {
  return {
    conversationId: trace.conversationId,
    messageId: trace.messageId,
    agentId: trace.agentId,
    timestamp: trace.timestamp,
    totalTokens: trace.totalTokens,
    totalLatencyMs: Math.round(trace.totalLatencyMs * 1000),
    llmCalls: trace.llmCalls.map((c) => ({
      model: c.model,
      promptTokens: c.promptTokens,
      completionTokens: c.completionTokens,
      startedAt: c.startedAt,
      latencyMs: Math.round(c.latencyMs * 1000),
      error: c.error,
    })),
    toolTraces: trace.toolTraces.map((t) => ({
      toolName: t.toolName,
      input: t.input,
      finalData: t.finalData,
      traceback: t.traceback,
      durationMs: Math.round(t.durationMs! * 1000),
    })),
    finishReasons: trace.metadata.finishReasons,
  };
}

describe.each(["json", "protobuf"] as const)("OTLP/HTTP %s", (protocol) => {
  it("AI SDK run → TurnTrace → GenAI spans → collector → TurnTrace keeps models, tokens, tools, timings", async () => {
    const { trace, conversationId, messageId } = await storedRun();
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    await sendOtlpSpans(turnTraceToSpans(trace), {
      endpoint: receiver.url,
      protocol,
      headers: { authorization: "Bearer secret-token" },
    });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.contentType).toBe(
      protocol === "json" ? "application/json" : "application/x-protobuf",
    );
    expect(request!.headers.authorization).toBe("Bearer secret-token");
    expect(request!.resource["service.name"]).toBe("message-store");
    const spans = request!.spans;
    expect(spans.map((s) => s.name)).toEqual([
      "invoke_agent weather-bot",
      "chat mock-model-2025-01",
      "chat mock-model",
      "execute_tool weather",
      "execute_tool weather",
    ]);
    const root = spans[0]!;
    expect(root.parentSpanId).toBe("");
    expect(
      spans.slice(1).every((s) => s.parentSpanId === root.spanId && s.traceId === root.traceId),
    ).toBe(true);
    expect(root.startTimeUnixNano).toBe(BigInt(trace.timestamp) * 1_000_000n);
    expect(spans[1]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 12,
      "gen_ai.response.finish_reasons": ["tool-calls"],
    });
    expect(spans.find((s) => s.status.code === 2)!.status.message).toBe("no weather under the sea");

    // Back in: the spans a collector received make the same trace in another store.
    const other = await storeWithTurn({ conversationId, messageId });
    const exporter = new MessageStoreSpanExporter(other.store);
    exporter.export(spans.map(asSpanLike), () => {});
    await exporter.forceFlush();
    const back = await other.store.getTurnTraceByMessageId(messageId);
    const expected = kept(trace);
    // Tool runs record no start time, so their spans are laid end to end: order by input.
    const byInput = (x: ReturnType<typeof kept>) => ({
      ...x,
      toolTraces: [...x.toolTraces].sort((a, b) =>
        JSON.stringify(a.input).localeCompare(JSON.stringify(b.input)),
      ),
    });
    expect(byInput(kept(back!))).toEqual(byInput(expected));
  });
});

it("the same trace exported twice sends the same span ids", async () => {
  const { trace } = await storedRun();
  expect(turnTraceToSpans(trace)).toEqual(turnTraceToSpans(trace));
});

it("retries a busy collector, and names a refusing one without its credentials or headers", async () => {
  const { trace } = await storedRun();
  const busy = await startOtlpReceiver({ failFirst: 1 });
  receivers.push(busy);
  await sendOtlpSpans(turnTraceToSpans(trace), { endpoint: `${busy.url}/v1/traces`, retries: 1 });
  expect(busy.requests).toHaveLength(1);

  const wrongPath = `${busy.url.replace("http://", "http://user:pw@")}/nowhere/`;
  const error = await sendOtlpSpans(turnTraceToSpans(trace), {
    endpoint: wrongPath,
    headers: { "x-api-key": "hunter2" },
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OtlpExportError);
  expect((error as OtlpExportError).status).toBe(404);
  expect(String(error)).not.toMatch(/pw|hunter2/);
  expect(otlpTracesUrl("http://c:4318")).toBe("http://c:4318/v1/traces");
  expect(() => otlpTracesUrl("ftp://c")).toThrow(OtlpExportError);
});

it.each(["json", "protobuf"] as const)(
  "encodes every attribute kind so a collector decodes it (%s)",
  async (protocol) => {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const attributes = { neg: -5, big: 2 ** 40, pi: 3.25, list: ["a", "b"], ok: true, s: "é✓" };
    await sendOtlpSpans(
      [
        {
          traceId: "ab".repeat(16),
          spanId: "cd".repeat(8),
          parentSpanId: "ef".repeat(8),
          name: "chat m",
          kind: 3,
          startTimeUnixNano: 1_765_000_000_123_456_789n,
          endTimeUnixNano: 1_765_000_001_000_000_000n,
          attributes,
          status: { code: 2, message: "boom" },
        },
      ],
      { endpoint: receiver.url, protocol, serviceName: "svc" },
    );
    const [span] = receiver.requests[0]!.spans;
    expect(span).toMatchObject({
      traceId: "ab".repeat(16),
      spanId: "cd".repeat(8),
      parentSpanId: "ef".repeat(8),
      kind: 3,
      startTimeUnixNano: 1_765_000_000_123_456_789n,
      attributes,
      status: { code: 2, message: "boom" },
    });
    expect(receiver.requests[0]!.resource["service.name"]).toBe("svc");
  },
);
