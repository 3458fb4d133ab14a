import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { messageStoreTelemetry } from "@message-store/ai-sdk";
import { MessageStore, type MessageStoreApi, newId } from "@message-store/core";
import "@message-store/json";
import { MessageStoreSpanExporter, type SpanLike } from "@message-store/otel";
import { writeSyntheticFile } from "./adapters/json.js";
import { describeMachine } from "./machine.js";

const run = promisify(execFile);
const CLI = fileURLToPath(new URL("../../packages/cli/bin/message-store.js", import.meta.url));
/** CPU time (user + system) of this process since `since`, in µs: load on the machine does not count. */
const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Stores `n` conversations with an assistant message each; returns their ids. */
async function turns(store: MessageStoreApi, n: number) {
  const out: { conversationId: string; messageId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const conversationId = newId();
    const messageId = newId();
    await store.storeSessionMessages(
      conversationId,
      [{ role: "user", content: "q" }, { role: "assistant", content: "a", id: messageId } as never],
      { userId: "u" },
    );
    out.push({ conversationId, messageId });
  }
  return out;
}

/** One run's events as ai 7 sends them: start, 4 model calls and 4 tool runs, end (18 events). */
function driveRun(t: ReturnType<typeof messageStoreTelemetry>, callId: string, now: number) {
  t.onStart({ callId, operationId: "ai.generateText", functionId: "bench", timestamp: now });
  for (let s = 0; s < 4; s++) {
    t.onLanguageModelCallStart({ callId, timestamp: now + s * 10 });
    t.onLanguageModelCallEnd({
      callId,
      timestamp: now + s * 10 + 5,
      modelId: "gpt-bench",
      finishReason: "tool-calls",
      usage: { inputTokens: 100, outputTokens: 20 },
      performance: { responseTimeMs: 5 },
    });
    const toolCall = { toolCallId: `c${s}`, toolName: "lookup", input: { q: s } };
    t.onToolExecutionStart({ callId, toolCall, timestamp: now + s * 10 + 6 });
    t.onToolExecutionEnd({
      callId,
      toolCall,
      toolExecutionMs: 2,
      toolOutput: { type: "tool-result", output: { rows: [s] } },
    });
  }
  t.onEnd({ callId, timestamp: now + 50 });
}
const EVENTS_PER_RUN = 18;

/** A 50-span turn: invoke_agent over 25 chat and 24 execute_tool spans, as SDK spans. */
function turnSpans(
  traceId: string,
  link: { conversationId: string; messageId: string },
): SpanLike[] {
  const t0 = Math.floor(Date.now() / 1000);
  const span = (
    id: string,
    parent: string | undefined,
    attributes: Record<string, unknown>,
    i: number,
  ): SpanLike => ({
    name: String(attributes["gen_ai.operation.name"]),
    spanContext: () => ({ traceId, spanId: id }),
    parentSpanContext: parent ? { spanId: parent } : undefined,
    startTime: [t0, i * 1000],
    endTime: [t0, i * 1000 + 500_000],
    status: { code: 0 },
    attributes,
  });
  const spans: SpanLike[] = [];
  for (let i = 0; i < 49; i++) {
    spans.push(
      i % 2
        ? span(
            `t${i}`,
            "root",
            {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": "lookup",
              "gen_ai.tool.call.arguments": '{"q":1}',
              "gen_ai.tool.call.result": '{"rows":[1]}',
            },
            i,
          )
        : span(
            `c${i}`,
            "root",
            {
              "gen_ai.operation.name": "chat",
              "gen_ai.request.model": "gpt-bench",
              "gen_ai.usage.input_tokens": 100,
              "gen_ai.usage.output_tokens": 20,
            },
            i,
          ),
    );
  }
  spans.push(
    span(
      "root",
      undefined,
      {
        "gen_ai.operation.name": "invoke_agent",
        "message_store.conversation_id": link.conversationId,
        "message_store.message_id": link.messageId,
      },
      0,
    ),
  );
  return spans;
}

/**
 * `otel [--turns 10000]`: the telemetry targets. Synchronous work per AI SDK telemetry event and
 * per exported span (what the app's thread pays), CPU per 50-span turn assembled and stored in
 * a JSON store, and the CLI's `export --otlp` of `--turns` stored traces to an OTLP/HTTP
 * receiver in this process (both protocols). Prints markdown rows.
 */
export async function otelBench(argv: string[]): Promise<void> {
  const i = argv.indexOf("--turns");
  const exportTurns = i >= 0 ? Number(argv[i + 1]) : 10_000;
  const dir = await mkdtemp(join(tmpdir(), "ms-bench-otel-"));
  console.log(describeMachine().join("; "));
  console.log(`date: ${new Date().toISOString()}, load average ${loadavg()[0]!.toFixed(2)}`);
  try {
    const store = await MessageStore.initialize({ storage: "json", path: join(dir, "in.json") });
    const links = await turns(store, 2000);

    // 1. Integration: the app thread's time per event, over rounds of 200 runs.
    const perEvent: number[] = [];
    for (let round = 0; round < 5; round++) {
      const t = messageStoreTelemetry(store, { ...links[round]!, userId: "u" });
      const cpu = process.cpuUsage();
      for (let r = 0; r < 200; r++) driveRun(t, `run-${round}-${r}`, Date.now());
      perEvent.push(cpuMicros(cpu) / (200 * EVENTS_PER_RUN));
      await t.flush();
    }
    // 2. Exporter: the synchronous part of export(), per span, and CPU per turn stored.
    const exporter = new MessageStoreSpanExporter(store, { maxTraces: 100 });
    const perSpan: number[] = [];
    const cpuPerTurn: number[] = [];
    for (let round = 0; round < 5; round++) {
      const batch = links
        .slice(round * 200, round * 200 + 200)
        .map((l, k) => turnSpans(`${round}-${k}`.padStart(32, "0"), l));
      const cpu = process.cpuUsage();
      for (const spans of batch) exporter.export(spans, () => {});
      perSpan.push(cpuMicros(cpu) / (200 * 50));
      await exporter.forceFlush();
      cpuPerTurn.push(cpuMicros(cpu) / 1000 / 200);
    }
    console.log(`exporter stats: ${JSON.stringify(exporter.stats)}`);
    await store.close();
    console.log("| measure | median of 5 rounds | target |");
    console.log("|---|---|---|");
    console.log(
      `| integration, sync CPU per event (18-event runs) | ${median(perEvent).toFixed(2)} µs | ≤ 5 µs |`,
    );
    console.log(
      `| exporter, sync CPU per span (50-span turns, assembly included) | ${median(perSpan).toFixed(2)} µs | ≤ 5 µs |`,
    );
    console.log(
      `| 50-span turn assembled and stored (JSON store), CPU | ${median(cpuPerTurn).toFixed(3)} ms | ≤ 2 ms |`,
    );

    // 3. The CLI exporting stored traces to an OTLP/HTTP receiver.
    const file = join(dir, "export.json");
    // The synthetic dataset puts a trace on every fifth message.
    await writeSyntheticFile(file, exportTurns * 5, exportTurns);
    let received = 0;
    const server = createServer((req, res) => {
      req.on("data", (c: Buffer) => {
        received += c.length;
      });
      req.on("end", () => res.writeHead(200).end("{}"));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const protocol of ["protobuf", "json"]) {
      received = 0;
      const start = performance.now();
      // /usr/bin/time reports the CLI's own CPU time: on a loaded machine wall time is mostly waiting.
      const { stderr } = await run("/usr/bin/time", [
        "-f",
        "cpu_s=%U+%S",
        process.execPath,
        CLI,
        "export",
        "--store",
        `json:${file}`,
        "--otlp",
        url,
        "--otlp-protocol",
        protocol,
      ]);
      const seconds = (performance.now() - start) / 1000;
      const cpu = /cpu_s=([\d.]+)\+([\d.]+)/.exec(stderr);
      const cpuSeconds = cpu ? Number(cpu[1]) + Number(cpu[2]) : Number.NaN;
      const summary = stderr.split("\n").find((l) => l.startsWith("exported"));
      console.log(
        `| CLI export --otlp (${protocol}), ${exportTurns} turns, process start and store open included | ${seconds.toFixed(2)} s wall, ${cpuSeconds.toFixed(2)} s CPU, ${(received / 2 ** 20).toFixed(1)} MiB sent (${summary}) | ≤ 10 s |`,
      );
    }
    server.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
