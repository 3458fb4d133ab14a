import type { MessageStore, TurnTrace, UsageBucket } from "@message-store/core";
import { callsCostUsd } from "../format/calls-cost.js";
import { formatCost, formatCount, formatCountOf, formatMs } from "../format/numbers.js";
import { type Align, renderTable } from "../format/table.js";
import { formatTimestamp } from "../format/time.js";
import { withStore } from "../open-store.js";
import { writeLine } from "../output.js";
import type { StoreConfigObject } from "../store-spec.js";

export interface TracesOptions {
  agent?: string;
  user?: string;
  since: number;
  until: number;
  /** `turn`: one row per turn (newest first); `hour` / `day`: usage per UTC bucket. */
  by: "turn" | "hour" | "day";
  /** Rows shown with `--by turn`. */
  limit: number;
}

const NUMERIC: Align[] = [
  "left",
  "right",
  "right",
  "right",
  "right",
  "right",
  "right",
  "right",
  "right",
];

/**
 * A bucket's cost. `summarizeUsage` counts an unpriced call as 0, so a bucket of $0 is one with no
 * priced call (calls priced at exactly $0 read the same): shown as unknown, `—`.
 */
function formatBucketCost(usd: number): string {
  return formatCost(usd > 0 ? usd : null);
}

function usageTable(buckets: UsageBucket[], by: "hour" | "day"): string {
  const rows = buckets.map((b) => [
    by === "hour"
      ? formatTimestamp(b.bucketStart).slice(0, 16)
      : formatTimestamp(b.bucketStart).slice(0, 10),
    formatCount(b.turns),
    formatCount(b.totalTokens),
    formatCount(b.promptTokens),
    formatCount(b.completionTokens),
    formatBucketCost(b.costUsd),
    formatMs(b.avgLatencyMs),
    formatMs(b.maxLatencyMs),
    formatCount(b.turnsWithErrors),
  ]);
  const sum = (k: keyof UsageBucket) => buckets.reduce((s, b) => s + b[k], 0);
  const turns = sum("turns");
  rows.push([
    "total",
    formatCount(turns),
    formatCount(sum("totalTokens")),
    formatCount(sum("promptTokens")),
    formatCount(sum("completionTokens")),
    formatBucketCost(sum("costUsd")),
    formatMs(turns > 0 ? buckets.reduce((s, b) => s + b.avgLatencyMs * b.turns, 0) / turns : 0),
    formatMs(Math.max(0, ...buckets.map((b) => b.maxLatencyMs))),
    formatCount(sum("turnsWithErrors")),
  ]);
  return renderTable(
    [
      `${by} (UTC)`,
      "turns",
      "tokens",
      "prompt",
      "completion",
      "cost",
      "avg latency",
      "max latency",
      "errors",
    ],
    rows,
    NUMERIC,
    { footer: true },
  );
}

function turnTable(traces: TurnTrace[]): string {
  return renderTable(
    [
      "time (UTC)",
      "agent",
      "conversation",
      "tokens",
      "LLM calls",
      "tool runs",
      "latency",
      "cost",
      "errors",
    ],
    traces.map((t) => [
      formatTimestamp(t.timestamp),
      t.agentId,
      t.conversationId,
      formatCount(t.totalTokens),
      formatCount(t.llmCalls.length),
      formatCount(t.toolTraces.length),
      formatMs(t.totalLatencyMs),
      formatCost(callsCostUsd(t.llmCalls)),
      formatCount(t.errors.length),
    ]),
    ["left", "left", "left", "right", "right", "right", "right", "right", "right"],
  );
}

async function render(store: MessageStore, o: TracesOptions): Promise<string> {
  const filter = {
    ...(o.agent === undefined ? {} : { agentId: o.agent }),
    ...(o.user === undefined ? {} : { userId: o.user }),
    since: o.since,
    until: o.until,
  };
  const title = [
    o.agent === undefined ? "all agents" : `agent ${o.agent}`,
    ...(o.user === undefined ? [] : [`user ${o.user}`]),
    `${formatTimestamp(o.since)} → ${formatTimestamp(o.until)}`,
  ].join(" · ");
  if (o.by === "turn") {
    const page = await store.queryTurnTraces({ ...filter, limit: o.limit });
    if (page.items.length === 0) return `${title}\nno turns in this window`;
    const more =
      page.nextCursor === null
        ? ""
        : `\nnewest ${formatCountOf(o.limit, "turn")} shown; more with --limit`;
    return `${title}\n${turnTable(page.items)}${more}`;
  }
  const buckets = await store.summarizeUsage({ ...filter, bucket: o.by });
  if (buckets.length === 0) return `${title}\nno turns in this window`;
  return `${title}\n${usageTable(buckets, o.by)}`;
}

/** `message-store traces [--agent id] [--since 24h] [--by hour|day|turn]`: a usage table. */
export async function tracesCommand(
  config: StoreConfigObject,
  options: TracesOptions,
  io: { stdout: NodeJS.WritableStream },
): Promise<void> {
  const text = await withStore(config, (store) => render(store, options), { create: false });
  await writeLine(io.stdout, text);
}
