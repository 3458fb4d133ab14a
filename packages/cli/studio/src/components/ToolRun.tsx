import type { ToolTrace } from "@message-store/core";
import { formatCount, formatMs, pretty } from "../format.js";

/** One sandboxed tool run: its script attempts, the final script, stdout, traceback and data. */
export function ToolRun({ tool, index }: { tool: ToolTrace; index: number }) {
  const failed = tool.traceback !== null || (tool.exitCode !== null && tool.exitCode !== 0);
  return (
    <article id={`tool-${index}`} className={`tool-run${failed ? " failed" : ""}`}>
      <h3>
        {tool.toolName}{" "}
        <span className="muted">
          {tool.durationMs === null ? "" : formatMs(tool.durationMs)}
          {tool.exitCode === null ? "" : ` · exit ${tool.exitCode}`}
          {` · ${formatCount(tool.outputBytes)} bytes out`}
        </span>
      </h3>
      {tool.generationAttempts.map((a) => (
        <details key={a.attempt} open={a.error !== null}>
          <summary>
            script attempt {a.attempt}
            {a.error !== null && <span className="badge bad">failed</span>}
          </summary>
          <pre>{a.script}</pre>
          {a.error !== null && <pre className="bad">{a.error}</pre>}
        </details>
      ))}
      {tool.finalScript !== null && (
        <>
          <h4>script</h4>
          <pre>{tool.finalScript}</pre>
        </>
      )}
      {tool.stdout !== null && (
        <>
          <h4>stdout</h4>
          <pre>{tool.stdout}</pre>
        </>
      )}
      {tool.traceback !== null && (
        <>
          <h4>traceback</h4>
          <pre className="bad">{tool.traceback}</pre>
        </>
      )}
      {tool.finalData !== null && (
        <>
          <h4>data</h4>
          <pre>{pretty(tool.finalData)}</pre>
        </>
      )}
    </article>
  );
}
