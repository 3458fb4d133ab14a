import { useAgents } from "../queries.js";

/** A select of the agents seen in the newest turns ("" = all agents). */
export function AgentSelect({
  value,
  onChange,
}: {
  value: string;
  onChange: (agent: string) => void;
}) {
  const agents = useAgents();
  const list = agents.data?.agents ?? [];
  return (
    <label>
      agent{" "}
      <select value={value} onChange={(e) => onChange(e.target.value)} aria-label="agent">
        <option value="">all agents</option>
        {[...new Set([...list, ...(value ? [value] : [])])].map((a) => (
          <option key={a} value={a}>
            {a}
          </option>
        ))}
      </select>
    </label>
  );
}
