import { useQuery } from "@tanstack/react-query";
import type { EChartsCoreOption } from "echarts/core";
import { useCallback, useMemo } from "react";
import { Link, useParams } from "react-router";
import type { TurnView } from "../../../src/studio/api-types.js";
import { getJson } from "../api.js";
import { EChart } from "../components/EChart.js";
import { ErrorNote, Loading } from "../components/Status.js";
import { ToolRun } from "../components/ToolRun.js";
import { formatCost, formatCount, formatMs, formatTime, pretty } from "../format.js";
import { textTooltip } from "../tooltip.js";
import { layoutWaterfall, type WaterfallRow } from "../waterfall.js";

const COLORS = { turn: "#94a3b8", llm: "#3b82f6", tool: "#10b981", failed: "#ef4444" };

function barColor(row: WaterfallRow | null): string {
  if (row === null) return COLORS.turn;
  return row.failed ? COLORS.failed : COLORS[row.kind];
}

function waterfallOption(view: TurnView): {
  option: EChartsCoreOption;
  rows: (WaterfallRow | null)[];
} {
  const { rows, totalMs } = layoutWaterfall(view.trace);
  const all: (WaterfallRow | null)[] = [null, ...rows];
  const label = (r: WaterfallRow | null) => (r === null ? "turn" : r.label);
  const option: EChartsCoreOption = {
    animation: false,
    grid: { left: 8, right: 90, top: 24, bottom: 30, containLabel: true },
    xAxis: {
      type: "value",
      min: 0,
      max: Math.ceil(totalMs),
      name: "ms from turn start",
      nameLocation: "middle",
      nameGap: 24,
      axisLabel: { formatter: (ms: number) => formatMs(ms) },
    },
    yAxis: { type: "category", inverse: true, data: all.map(label) },
    tooltip: {
      trigger: "item",
      className: "chart-tooltip",
      formatter: (p: { dataIndex: number }) => {
        const r = all[p.dataIndex];
        if (r === null || r === undefined) {
          return textTooltip([`turn · ${formatMs(view.trace.totalLatencyMs)}`]);
        }
        return textTooltip([
          r.label,
          `starts +${formatMs(r.startMs)} · ${formatMs(r.durationMs)}`,
          ...(r.estimated ? ["(start not recorded: placed after what precedes it)"] : []),
          ...(r.failed ? ["failed"] : []),
        ]);
      },
    },
    series: [
      {
        type: "bar",
        stack: "waterfall",
        silent: true,
        itemStyle: { color: "transparent" },
        tooltip: { show: false },
        data: all.map((r) => (r === null ? 0 : r.startMs)),
      },
      {
        type: "bar",
        stack: "waterfall",
        name: "duration",
        barMaxWidth: 22,
        label: {
          show: true,
          position: "right",
          formatter: (p: { value: number }) => formatMs(p.value),
        },
        data: all.map((r) => ({
          value: r === null ? view.trace.totalLatencyMs : r.durationMs,
          itemStyle: {
            color: barColor(r),
            opacity: r?.estimated ? 0.6 : 1,
            borderColor: barColor(r),
            borderType: r?.estimated ? "dashed" : "solid",
            borderWidth: r?.estimated ? 1 : 0,
          },
        })),
      },
    ],
  };
  return { option, rows: all };
}

/** A turn: totals, the waterfall of its model calls and tool runs, and each one in detail. */
export function TurnPage() {
  const messageId = useParams().messageId!;
  const turn = useQuery({
    queryKey: ["turn", messageId],
    queryFn: () => getJson<TurnView>(`/api/turns/${encodeURIComponent(messageId)}`),
  });
  const chart = useMemo(() => (turn.data ? waterfallOption(turn.data) : null), [turn.data]);
  const onBarClick = useCallback(
    (p: { dataIndex: number }) => {
      const r = chart?.rows[p.dataIndex];
      if (r) document.getElementById(`${r.kind}-${r.index}`)?.scrollIntoView({ block: "start" });
    },
    [chart],
  );
  if (turn.error) return <ErrorNote error={turn.error} />;
  if (!turn.data || !chart) return <Loading what="the turn" />;
  const { trace, summary, message } = turn.data;
  return (
    <section>
      <h1>Turn of {trace.agentId}</h1>
      <p className="facts">
        {formatTime(trace.timestamp)} UTC · conversation{" "}
        <Link
          to={`/conversations/${encodeURIComponent(trace.conversationId)}#m-${trace.messageId}`}
        >
          {trace.conversationId}
        </Link>{" "}
        · message <span className="id">{trace.messageId}</span>
        {trace.userId !== null && <> · user {trace.userId}</>}
      </p>
      <dl className="stats">
        <div>
          <dt>tokens</dt>
          <dd>{formatCount(summary.totalTokens)}</dd>
          <small>
            {formatCount(summary.promptTokens)} prompt + {formatCount(summary.completionTokens)}{" "}
            completion
          </small>
        </div>
        <div>
          <dt>cost</dt>
          <dd>{formatCost(summary.costUsd)}</dd>
        </div>
        <div>
          <dt>latency</dt>
          <dd>{formatMs(summary.totalLatencyMs)}</dd>
        </div>
        <div>
          <dt>LLM calls</dt>
          <dd>{summary.llmCalls}</dd>
          <small>{summary.models.join(", ")}</small>
        </div>
        <div>
          <dt>tool runs</dt>
          <dd>{summary.toolRuns}</dd>
        </div>
        <div className={summary.errors > 0 ? "bad" : ""}>
          <dt>errors</dt>
          <dd>{summary.errors}</dd>
        </div>
      </dl>
      <h2>Waterfall</h2>
      <p className="muted legend">
        <span className="swatch llm" /> LLM call <span className="swatch tool" /> tool run{" "}
        <span className="swatch failed" /> failed · dashed: no start time recorded (tool runs never
        have one), placed after what precedes it
      </p>
      <EChart
        option={chart.option}
        height={70 + chart.rows.length * 34}
        label="waterfall of the turn"
        onClick={onBarClick}
      />
      {message && (
        <>
          <h2>Answer</h2>
          <div className="content boxed">{message.originalContent}</div>
        </>
      )}
      <h2>LLM calls</h2>
      <table className="grid">
        <thead>
          <tr>
            <th>#</th>
            <th>purpose</th>
            <th>model</th>
            <th>started (UTC)</th>
            <th>prompt</th>
            <th>completion</th>
            <th>latency</th>
            <th>cost</th>
            <th>error</th>
          </tr>
        </thead>
        <tbody>
          {trace.llmCalls.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: calls have no id; the list never reorders
            <tr key={`${i}-${c.model}`} id={`llm-${i}`} className={c.error ? "bad" : ""}>
              <td>{i + 1}</td>
              <td>{c.purpose}</td>
              <td>{c.model}</td>
              <td className="num">{c.startedAt === null ? "—" : formatTime(c.startedAt)}</td>
              <td className="num">{formatCount(c.promptTokens)}</td>
              <td className="num">{formatCount(c.completionTokens)}</td>
              <td className="num">{formatMs(c.latencyMs)}</td>
              <td className="num">{c.costUsd === null ? "—" : formatCost(c.costUsd)}</td>
              <td>{c.error ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {trace.toolTraces.length > 0 && <h2>Tool runs</h2>}
      {trace.toolTraces.map((tool, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: tool runs have no id; the list never reorders
        <ToolRun key={`${i}-${tool.toolName}`} tool={tool} index={i} />
      ))}
      {trace.errors.length > 0 && (
        <>
          <h2>Errors</h2>
          <pre className="bad">{pretty(trace.errors)}</pre>
        </>
      )}
      {trace.reasoningSteps.length > 0 && (
        <>
          <h2>Reasoning steps</h2>
          <ol>
            {trace.reasoningSteps.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
