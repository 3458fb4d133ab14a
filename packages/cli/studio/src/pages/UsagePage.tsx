import type { UsageBucket } from "@message-store/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { EChartsCoreOption } from "echarts/core";
import { useMemo } from "react";
import { useSearchParams } from "react-router";
import type { ExpensiveTurns, UsageView } from "../../../src/studio/api-types.js";
import { getJson } from "../api.js";
import { AgentSelect } from "../components/AgentSelect.js";
import { EChart } from "../components/EChart.js";
import { ErrorNote, Loading } from "../components/Status.js";
import { TurnTable } from "../components/TurnTable.js";
import { formatCost, formatCount, formatMs } from "../format.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The windows offered, and the bucket each uses unless another is chosen. */
const WINDOWS = {
  "24h": { ms: DAY, bucket: "hour" },
  "7d": { ms: 7 * DAY, bucket: "hour" },
  "30d": { ms: 30 * DAY, bucket: "day" },
  "90d": { ms: 90 * DAY, bucket: "day" },
} as const;
type WindowName = keyof typeof WINDOWS;

function chart(
  title: string,
  buckets: UsageBucket[],
  series: {
    name: string;
    type: "bar" | "line";
    color: string;
    /** A bucket's value; `null` leaves the bucket without a bar (unknown). */
    value: (b: UsageBucket) => number | null;
    stack?: string;
  }[],
  /** How values read; `integer`: counts, so the axis never labels a fraction (0, 1, 1, 2). */
  values: { format: (n: number) => string; integer: boolean },
  range: { since: number; until: number },
): EChartsCoreOption {
  const { format, integer } = values;
  return {
    animation: false,
    title: { text: title, left: 0, textStyle: { fontSize: 13, fontWeight: 600 } },
    legend: { right: 0, top: 0 },
    grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
    // The default axis tooltip shows series names (fixed here) and numbers, both escaped.
    tooltip: {
      trigger: "axis",
      valueFormatter: (v: number | null | undefined) => (typeof v === "number" ? format(v) : "—"),
    },
    xAxis: { type: "time", min: range.since, max: range.until },
    yAxis: {
      type: "value",
      ...(integer ? { minInterval: 1 } : {}),
      axisLabel: { formatter: (v: number) => format(v) },
    },
    series: series.map((s) => ({
      name: s.name,
      type: s.type,
      stack: s.stack,
      color: s.color,
      barMaxWidth: 18,
      showSymbol: s.type === "line",
      data: buckets.map((b) => [b.bucketStart, s.value(b)]),
    })),
  };
}

/** Usage over a window (`summarizeUsage`) as charts, and the costliest turns (`queryTurnTraces`). */
export function UsagePage() {
  const [params, setParams] = useSearchParams();
  const windowName = (params.get("window") ?? "7d") as WindowName;
  const win = WINDOWS[windowName] ?? WINDOWS["7d"];
  const bucket =
    params.get("bucket") === "day" || params.get("bucket") === "hour"
      ? (params.get("bucket") as "hour" | "day")
      : win.bucket;
  const agent = params.get("agent") ?? "";
  // The window ends at the next full bucket, fixed while the choice stays the same.
  const range = useMemo(() => {
    const size = bucket === "hour" ? HOUR : DAY;
    const until = Math.ceil(Date.now() / size) * size;
    return { since: until - win.ms, until };
  }, [win, bucket]);
  const query = { ...range, bucket, agent };
  const usage = useQuery({
    queryKey: ["usage", query],
    queryFn: () => getJson<UsageView>("/api/usage", query),
    placeholderData: keepPreviousData,
  });
  const expensive = useQuery({
    queryKey: ["expensive", range, agent],
    queryFn: () => getJson<ExpensiveTurns>("/api/usage/expensive", { ...range, agent, limit: 10 }),
    placeholderData: keepPreviousData,
  });
  const set = (key: string, value: string) =>
    setParams((p) => {
      if (value === "") p.delete(key);
      else p.set(key, value);
      if (key === "window") p.delete("bucket");
      return p;
    });

  const buckets = usage.data?.buckets ?? [];
  const totals = buckets.reduce(
    (t, b) => ({
      turns: t.turns + b.turns,
      tokens: t.tokens + b.totalTokens,
      cost: t.cost + b.costUsd,
      errors: t.errors + b.turnsWithErrors,
      maxLatency: Math.max(t.maxLatency, b.maxLatencyMs),
      latencySum: t.latencySum + b.avgLatencyMs * b.turns,
    }),
    { turns: 0, tokens: 0, cost: 0, errors: 0, maxLatency: 0, latencySum: 0 },
  );
  const charts = usage.data
    ? [
        chart(
          "Tokens",
          buckets,
          [
            {
              name: "prompt",
              type: "bar",
              color: "#3b82f6",
              stack: "t",
              value: (b) => b.promptTokens,
            },
            {
              name: "completion",
              type: "bar",
              color: "#93c5fd",
              stack: "t",
              value: (b) => b.completionTokens,
            },
          ],
          { format: formatCount, integer: true },
          range,
        ),
        chart(
          totals.cost > 0 ? "Cost" : "Cost (unknown: no call was priced)",
          buckets,
          // summarizeUsage counts an unpriced call as $0: a bucket of $0 had no priced call.
          [
            {
              name: "cost",
              type: "bar",
              color: "#f59e0b",
              value: (b) => (b.costUsd > 0 ? b.costUsd : null),
            },
          ],
          { format: formatCost, integer: false },
          range,
        ),
        chart(
          "Latency per turn",
          buckets,
          [
            { name: "avg", type: "line", color: "#3b82f6", value: (b) => b.avgLatencyMs },
            { name: "max", type: "line", color: "#a855f7", value: (b) => b.maxLatencyMs },
          ],
          { format: formatMs, integer: false },
          range,
        ),
        chart(
          "Turns",
          buckets,
          [
            { name: "turns", type: "bar", color: "#64748b", value: (b) => b.turns },
            { name: "with errors", type: "bar", color: "#ef4444", value: (b) => b.turnsWithErrors },
          ],
          { format: formatCount, integer: true },
          range,
        ),
      ]
    : [];
  return (
    <section>
      <h1>Usage</h1>
      <div className="filters">
        <fieldset className="segmented" aria-label="window">
          {(Object.keys(WINDOWS) as WindowName[]).map((w) => (
            <button
              key={w}
              type="button"
              aria-pressed={w === windowName}
              onClick={() => set("window", w)}
            >
              last {w}
            </button>
          ))}
        </fieldset>
        <label>
          per{" "}
          <select
            value={bucket}
            onChange={(e) => set("bucket", e.target.value)}
            aria-label="bucket"
          >
            <option value="hour">hour</option>
            <option value="day">day</option>
          </select>
        </label>
        <AgentSelect value={agent} onChange={(a) => set("agent", a)} />
      </div>
      {usage.error ? <ErrorNote error={usage.error} /> : null}
      {usage.isPending ? <Loading what="usage" /> : null}
      {usage.data && (
        <dl className="stats" aria-label="totals">
          <div>
            <dt>turns</dt>
            <dd data-testid="total-turns">{formatCount(totals.turns)}</dd>
          </div>
          <div>
            <dt>tokens</dt>
            <dd data-testid="total-tokens">{formatCount(totals.tokens)}</dd>
          </div>
          <div>
            <dt>cost</dt>
            <dd data-testid="total-cost">{formatCost(totals.cost > 0 ? totals.cost : null)}</dd>
          </div>
          <div>
            <dt>avg / max latency</dt>
            <dd>
              {formatMs(totals.turns ? totals.latencySum / totals.turns : 0)} /{" "}
              {formatMs(totals.maxLatency)}
            </dd>
          </div>
          <div className={totals.errors > 0 ? "bad" : ""}>
            <dt>turns with errors</dt>
            <dd>{formatCount(totals.errors)}</dd>
          </div>
        </dl>
      )}
      <p className="muted">
        Per UTC {bucket}. Latency is the mean and the maximum per {bucket} (what `summarizeUsage`
        reports).
      </p>
      <div className="charts">
        {charts.map((option, i) => (
          <EChart
            key={["tokens", "cost", "latency", "turns"][i]}
            option={option}
            height={240}
            label={`${["tokens", "cost", "latency", "turns"][i]} per ${bucket}`}
          />
        ))}
      </div>
      <h2>Most expensive turns</h2>
      {expensive.error ? <ErrorNote error={expensive.error} /> : null}
      {expensive.data && (
        <>
          <p className="muted">
            By cost, among{" "}
            {expensive.data.truncated
              ? `the newest ${formatCount(expensive.data.scanned)}`
              : `all ${formatCount(expensive.data.scanned)}`}{" "}
            turns of the window.
          </p>
          <TurnTable turns={expensive.data.items} label="most expensive turns" />
        </>
      )}
    </section>
  );
}
