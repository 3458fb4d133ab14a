import { describe, expect, it } from "vitest";
import { LINK_ATTRIBUTE, MessageStoreSpanExporter, type SpanLike } from "../src/index.js";
import { storeWithTurn } from "./support/stores.js";

const T = 1_765_000_000;

function span(
  id: string,
  parent: string | undefined,
  attributes: SpanLike["attributes"],
  times: [number, number] = [0, 1],
  traceId = "t".repeat(32),
): SpanLike {
  return {
    name: String(attributes["gen_ai.operation.name"] ?? "x"),
    spanContext: () => ({ traceId, spanId: id }),
    parentSpanContext: parent === undefined ? undefined : { spanId: parent },
    startTime: [T + times[0], 0],
    endTime: [T + times[1], 0],
    status: { code: 0 },
    attributes,
  };
}

function exportNow(exporter: MessageStoreSpanExporter, spans: unknown[]) {
  let code = -1;
  exporter.export(spans as SpanLike[], (r) => {
    code = r.code;
  });
  return code;
}

describe("MessageStoreSpanExporter with bad input", () => {
  it("counts spans that are not spans, never throws, and stores the rest", async () => {
    const { store, conversationId, messageId } = await storeWithTurn();
    const exporter = new MessageStoreSpanExporter(store);
    const root = span("root", undefined, {
      "gen_ai.operation.name": "invoke_agent",
      [LINK_ATTRIBUTE.conversationId]: conversationId,
      [LINK_ATTRIBUTE.messageId]: messageId,
    });
    const code = exportNow(exporter, [
      null,
      42,
      {},
      {
        spanContext: () => ({ traceId: "", spanId: "" }),
        startTime: [0, 0],
        endTime: [0, 0],
        attributes: {},
      },
      {
        ...root,
        spanContext: () => {
          throw new Error("boom");
        },
      },
      { ...root, attributes: null },
      span(
        "chat-1",
        "root",
        {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": "m",
          "gen_ai.usage.input_tokens": -5,
          "gen_ai.usage.output_tokens": Number.NaN,
        },
        [2, 1],
      ),
      span("chat-2", "root", {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "m",
        "gen_ai.usage.prompt_tokens": 7,
        "gen_ai.usage.completion_tokens": "3",
      }),
      span("tool", "root", {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.call.arguments": "{not json",
      }),
      root,
    ]);
    expect(code).toBe(0);
    await exporter.forceFlush();
    expect(exporter.stats).toMatchObject({ badSpans: 6, spans: 4, stored: 1 });
    expect(exporter.stats.badValues).toBe(3);
    const trace = await store.getTurnTraceByMessageId(messageId);
    expect(trace!.llmCalls.map((c) => [c.promptTokens, c.completionTokens, c.latencyMs])).toEqual([
      [7, 3, 1000],
      [0, 0, 0],
    ]);
    expect(trace!.toolTraces).toMatchObject([{ toolName: "unknown", input: "{not json" }]);
  });

  it("keeps at most maxSpansPerTrace spans of a 10,000-span trace and counts the rest", async () => {
    const { store, conversationId, messageId } = await storeWithTurn();
    const exporter = new MessageStoreSpanExporter(store, { maxSpansPerTrace: 2_000 });
    const spans: SpanLike[] = [];
    for (let i = 0; i < 10_000; i++) {
      spans.push(
        span(`s${i}`, "root", {
          "gen_ai.operation.name": i % 2 ? "chat" : "execute_tool",
          "gen_ai.request.model": "m",
          "gen_ai.tool.name": "t",
          "gen_ai.usage.input_tokens": 1,
        }),
      );
    }
    spans.push(
      span("root", undefined, {
        [LINK_ATTRIBUTE.conversationId]: conversationId,
        [LINK_ATTRIBUTE.messageId]: messageId,
      }),
    );
    expect(exportNow(exporter, spans)).toBe(0);
    await exporter.forceFlush();
    expect(exporter.stats).toMatchObject({ spans: 2_001, droppedSpans: 8_000, stored: 1 });
    const trace = await store.getTurnTraceByMessageId(messageId);
    expect(trace!.llmCalls).toHaveLength(1_000);
    expect(trace!.toolTraces).toHaveLength(1_000);
    expect(trace!.totalTokens).toBe(1_000);
  });

  it("evicts traces past maxTraces, counting the unfinished ones", async () => {
    const { store } = await storeWithTurn();
    const exporter = new MessageStoreSpanExporter(store, { maxTraces: 3 });
    const spans = Array.from({ length: 5 }, (_, i) =>
      span("child", "root", { "gen_ai.operation.name": "chat" }, [0, 1], `${i}`.padStart(32, "0")),
    );
    expect(exportNow(exporter, spans)).toBe(0);
    expect(exporter.stats.unfinished).toBe(2);
  });

  it("after shutdown, reports FAILED instead of throwing", async () => {
    const { store } = await storeWithTurn();
    const exporter = new MessageStoreSpanExporter(store);
    await exporter.shutdown();
    expect(exportNow(exporter, [])).toBe(1);
  });
});
