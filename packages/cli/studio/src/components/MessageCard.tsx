import { Link } from "react-router";
import type { MessageView, TraceSummary } from "../../../src/studio/api-types.js";
import { formatTime, pretty } from "../format.js";
import { useInfo } from "../queries.js";
import { DeletedBadge } from "./DeletedBadge.js";
import { FlagButton } from "./FlagButton.js";
import { ToolCallSignature } from "./ToolCallSignature.js";
import { TurnLine } from "./TurnLine.js";

/** How a transcript's tool calls and tool results point at each other (within the loaded pages). */
export interface ToolPairs {
  /** toolCallId → the tool message answering it. */
  resultOf: Map<string, MessageView>;
  /** toolCallId → the assistant message that made the call. */
  callerOf: Map<string, MessageView>;
}

/** Builds the {@link ToolPairs} of loaded messages: a call is answered by the first later tool message with its id. */
export function pairTools(messages: MessageView[]): ToolPairs {
  const resultOf = new Map<string, MessageView>();
  const callerOf = new Map<string, MessageView>();
  for (const m of messages) {
    for (const call of m.toolCalls) callerOf.set(call.toolCallId, m);
    if (m.role === "tool" && m.toolCallId !== null && !resultOf.has(m.toolCallId)) {
      resultOf.set(m.toolCallId, m);
    }
  }
  return { resultOf, callerOf };
}

function Enrichment({ m }: { m: MessageView }) {
  const hasAny =
    m.intent !== null || m.sentiment !== null || m.entities.length > 0 || m.sentimentScore !== 0;
  if (!hasAny) return <div className="enrichment muted">no enrichment</div>;
  return (
    <div className="enrichment">
      {m.intent !== null && (
        <span className="chip">
          intent: <b>{m.intent}</b>
        </span>
      )}
      {(m.sentiment !== null || m.sentimentScore !== 0) && (
        <span className="chip">
          sentiment: <b>{m.sentiment ?? "—"}</b> ({m.sentimentScore})
        </span>
      )}
      {m.entities.map((e) => (
        <span key={e.name} className="chip">
          entity: <b>{e.name}</b>
          {e.attributes.length > 0 && ` (${e.attributes.join(", ")})`}
        </span>
      ))}
    </div>
  );
}

/** One message of a transcript: role, time, markers, content, tool calls paired with results. */
export function MessageCard({
  m,
  pairs,
  trace,
  showEnrichment,
}: {
  m: MessageView;
  pairs: ToolPairs;
  trace: TraceSummary | undefined;
  showEnrichment: boolean;
}) {
  const info = useInfo();
  const caller = m.toolCallId === null ? undefined : pairs.callerOf.get(m.toolCallId);
  return (
    <article
      id={`m-${m.id}`}
      className={`message role-${m.role}${m.isFlagged ? " flagged" : ""}${m.deletedAt !== null ? " deleted" : ""}`}
      data-message-id={m.id}
    >
      <div className="meta">
        <span className={`role role-${m.role}`}>{m.role}</span>
        {m.isFlagged && (
          <span className="badge bad" title="flagged: left out of the context window">
            ⚑ flagged
          </span>
        )}
        <DeletedBadge deletedAt={m.deletedAt} />
        <time className="muted">{formatTime(m.timestamp)}</time>
        <span className="id">{m.id}</span>
        <span className="spacer" />
        {info.data?.semanticSearch && m.embeddingDims !== null && m.deletedAt === null && (
          <Link className="button small" to={`/search?message=${encodeURIComponent(m.id)}`}>
            Similar
          </Link>
        )}
        {info.data?.allowWrites && m.deletedAt === null && <FlagButton message={m} />}
      </div>
      {m.role === "tool" ? (
        <div className="tool-result">
          ← <b>{m.toolName ?? "tool"}</b>
          {caller ? (
            <>
              {" "}
              answers <a href={`#m-${caller.id}`}>the call</a> ({m.toolCallId})
            </>
          ) : (
            m.toolCallId !== null && <span className="muted"> ({m.toolCallId})</span>
          )}
          <pre>{m.originalContent}</pre>
        </div>
      ) : (
        m.originalContent !== "" && <div className="content">{m.originalContent}</div>
      )}
      {m.toolCalls.map((call) => {
        const result = pairs.resultOf.get(call.toolCallId);
        return (
          <div key={call.toolCallId} className="tool-call">
            <ToolCallSignature call={call} />
            {result ? (
              // The result's own message shows its content: here only where it is.
              <div className="paired">
                ← result in <a href={`#m-${result.id}`}>{result.id}</a>
              </div>
            ) : call.result !== null ? (
              <div className="paired">
                ← stored result<pre>{pretty(call.result)}</pre>
              </div>
            ) : (
              <div className="paired muted">no result in the loaded messages</div>
            )}
          </div>
        );
      })}
      {showEnrichment && <Enrichment m={m} />}
      {trace && <TurnLine trace={trace} />}
    </article>
  );
}
