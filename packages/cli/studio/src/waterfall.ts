import type { TurnTrace } from "@message-store/core";

/** One bar of a turn's waterfall, in ms from the start of the turn. */
export interface WaterfallRow {
  kind: "llm" | "tool";
  /** Index in `llmCalls` or `toolTraces`. */
  index: number;
  label: string;
  startMs: number;
  durationMs: number;
  /** No start time was recorded: placed by the rules of {@link layoutWaterfall}. */
  estimated: boolean;
  failed: boolean;
}

export interface Waterfall {
  rows: WaterfallRow[];
  /** The axis length: the turn's latency, or the end of the last bar if later. */
  totalMs: number;
}

/**
 * Lays out a turn's model calls and tool runs on a time axis starting at the turn's first
 * recorded `startedAt`.
 *
 * - An LLM call with `startedAt` is placed there; one without starts when the previous call
 *   ended (marked estimated).
 * - Tool runs record no start time, only `durationMs`: the n-th tool run is placed after the
 *   LLM calls of its own generation attempts when they have `startedAt`, else after the n-th
 *   `script_generation` call, else after the last call; never before the previous tool run
 *   ends. They are always marked estimated.
 */
export function layoutWaterfall(trace: TurnTrace): Waterfall {
  const starts = trace.llmCalls.flatMap((c) => (c.startedAt === null ? [] : [c.startedAt]));
  const origin = starts.length > 0 ? Math.min(...starts) : null;
  const rows: WaterfallRow[] = [];
  let cursor = 0;
  const scriptGenerationEnds: number[] = [];
  trace.llmCalls.forEach((call, index) => {
    const estimated = call.startedAt === null || origin === null;
    const startMs = estimated ? cursor : call.startedAt! - origin!;
    cursor = Math.max(cursor, startMs + call.latencyMs);
    if (call.purpose === "script_generation") scriptGenerationEnds.push(startMs + call.latencyMs);
    rows.push({
      kind: "llm",
      index,
      label: `${call.purpose} · ${call.model}`,
      startMs,
      durationMs: call.latencyMs,
      estimated,
      failed: call.error !== null,
    });
  });
  let toolCursor = 0;
  trace.toolTraces.forEach((tool, index) => {
    const ownEnds = tool.generationAttempts.flatMap((a) =>
      a.llmCall?.startedAt != null && origin !== null
        ? [a.llmCall.startedAt - origin + a.llmCall.latencyMs]
        : [],
    );
    const anchor =
      ownEnds.length > 0 ? Math.max(...ownEnds) : (scriptGenerationEnds[index] ?? cursor);
    const startMs = Math.max(anchor, toolCursor);
    const durationMs = tool.durationMs ?? 0;
    toolCursor = startMs + durationMs;
    rows.push({
      kind: "tool",
      index,
      label: `tool · ${tool.toolName}`,
      startMs,
      durationMs,
      estimated: true,
      failed: tool.traceback !== null || (tool.exitCode !== null && tool.exitCode !== 0),
    });
  });
  const end = Math.max(0, ...rows.map((r) => r.startMs + r.durationMs));
  return { rows, totalMs: Math.max(trace.totalLatencyMs, end) };
}
