import { Link } from "react-router";
import type { TraceSummary } from "../../../src/studio/api-types.js";
import { formatCost, formatCount, formatMs, formatTime } from "../format.js";

/** Turns as rows: time, agent, conversation, tokens, calls, latency, cost, errors; each opens the turn. */
export function TurnTable({ turns, label }: { turns: TraceSummary[]; label: string }) {
  return (
    <table className="grid" aria-label={label}>
      <thead>
        <tr>
          <th>time (UTC)</th>
          <th>agent</th>
          <th>conversation</th>
          <th>tokens</th>
          <th>LLM calls</th>
          <th>tool runs</th>
          <th>latency</th>
          <th>cost</th>
          <th>errors</th>
        </tr>
      </thead>
      <tbody>
        {turns.map((t) => (
          <tr key={t.id} className={t.errors > 0 ? "bad" : ""}>
            <td className="num">
              <Link to={`/turns/${encodeURIComponent(t.messageId)}`}>
                {formatTime(t.timestamp)}
              </Link>
            </td>
            <td>{t.agentId}</td>
            <td>
              <Link to={`/conversations/${encodeURIComponent(t.conversationId)}`}>
                {t.conversationId}
              </Link>
            </td>
            <td className="num">{formatCount(t.totalTokens)}</td>
            <td className="num">{t.llmCalls}</td>
            <td className="num">{t.toolRuns}</td>
            <td className="num">{formatMs(t.totalLatencyMs)}</td>
            <td className="num">{formatCost(t.costUsd)}</td>
            <td className="num">{t.errors}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
