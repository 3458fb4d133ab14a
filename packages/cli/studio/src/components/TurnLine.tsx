import { Link } from "react-router";
import type { TraceSummary } from "../../../src/studio/api-types.js";
import { formatCost, formatCountOf, formatMs } from "../format.js";

/** `∑ 2,210 tokens · 2 LLM calls · 1 tool run · 3.12 s · $0.0059` linking to the turn view. */
export function TurnLine({ trace }: { trace: TraceSummary }) {
  const parts = [
    formatCountOf(trace.totalTokens, "token"),
    formatCountOf(trace.llmCalls, "LLM call"),
    ...(trace.toolRuns > 0 ? [formatCountOf(trace.toolRuns, "tool run")] : []),
    formatMs(trace.totalLatencyMs),
    formatCost(trace.costUsd),
  ];
  return (
    <Link className="turn-line" to={`/turns/${encodeURIComponent(trace.messageId)}`}>
      ∑ turn: {parts.join(" · ")}
      {trace.errors > 0 && (
        <span className="badge bad">{formatCountOf(trace.errors, "error")}</span>
      )}
      <span className="go">waterfall →</span>
    </Link>
  );
}
