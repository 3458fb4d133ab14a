import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useParams, useSearchParams } from "react-router";
import type { ContextWindow, MessageView } from "../../../src/studio/api-types.js";
import { getJson } from "../api.js";
import { ConversationHeader, useConversation } from "../components/ConversationHeader.js";
import { ErrorNote, Loading } from "../components/Status.js";
import { ToolCallSignature } from "../components/ToolCallSignature.js";
import { formatCount, formatCountOf, formatTime } from "../format.js";
import { useInfo } from "../queries.js";

function Cell({ m, other }: { m: MessageView; other?: MessageView }) {
  const changed = other !== undefined && other.originalContent !== m.originalContent;
  return (
    <div className={`cell role-${m.role}${changed ? " compressed" : ""}`} data-message-id={m.id}>
      <div className="meta">
        <span className={`role role-${m.role}`}>{m.role}</span>
        <time className="muted">{formatTime(m.timestamp)}</time>
        {changed && (
          <span className="badge warn">
            compressed {formatCount(other.originalContent.length)} →{" "}
            {formatCount(m.originalContent.length)} chars
          </span>
        )}
      </div>
      {m.role === "tool" && <div className="tool-result">← {m.toolName ?? "tool"}</div>}
      {m.originalContent !== "" && <div className="content">{m.originalContent}</div>}
      {m.toolCalls.map((call) => (
        <div key={call.toolCallId} className="tool-call">
          <ToolCallSignature call={call} />
        </div>
      ))}
    </div>
  );
}

/**
 * The context window a model would see (`getImmediateContext`, flagged messages left out),
 * compressed, side by side with the same messages whole. Compression starts at the library's
 * defaults (what `compress: true` means).
 */
export function ContextPage() {
  const id = useParams().id!;
  const [params, setParams] = useSearchParams();
  const defaults = useInfo().data?.compressDefaults;
  const conversation = useConversation(id);
  const n = Number(params.get("n") ?? 20);
  const compress = params.get("compress") !== "off";
  const maxChars = Number(params.get("maxChars") ?? defaults?.maxChars);
  const keepChars = Number(params.get("keepChars") ?? defaults?.keepChars);
  const context = useQuery({
    queryKey: ["context", id, { n, compress, maxChars, keepChars }],
    queryFn: () =>
      getJson<ContextWindow>(`/api/conversations/${encodeURIComponent(id)}/context`, {
        n,
        ...(compress ? { maxChars, keepChars } : { compress: false }),
      }),
    enabled: defaults !== undefined && conversation.isSuccess,
    placeholderData: keepPreviousData,
  });
  const set = (key: string, value: string) =>
    setParams((p) => {
      p.set(key, value);
      return p;
    });
  const data = context.data;
  return (
    <section>
      <ConversationHeader id={id} />
      {/* An unknown conversation: the header says so, and nothing else is shown. */}
      {conversation.isError ? null : (
        <>
          <div className="filters">
            <label>
              last{" "}
              <input
                type="number"
                min={0}
                max={1000}
                value={n}
                aria-label="messages in the window"
                onChange={(e) => set("n", e.target.value)}
              />{" "}
              messages
            </label>
            <label>
              <input
                type="checkbox"
                checked={compress}
                onChange={(e) => set("compress", e.target.checked ? "on" : "off")}
              />{" "}
              compress assistant messages longer than
              <input
                type="number"
                min={1}
                value={Number.isNaN(maxChars) ? "" : maxChars}
                disabled={!compress}
                aria-label="max chars"
                onChange={(e) => set("maxChars", e.target.value)}
              />
              chars, keeping
              <input
                type="number"
                min={0}
                value={Number.isNaN(keepChars) ? "" : keepChars}
                disabled={!compress}
                aria-label="keep chars"
                onChange={(e) => set("keepChars", e.target.value)}
              />
              from each end
            </label>
          </div>
          <p className="muted">
            Flagged messages are left out of the window, as the model would see it.
          </p>
          {context.error ? <ErrorNote error={context.error} /> : null}
          {context.isPending ? <Loading what="the context window" /> : null}
          {data && (
            <div className="side-by-side">
              <h2>Context window ({formatCountOf(data.context.length, "message")})</h2>
              <h2>Full text</h2>
              {data.context.map((m, i) => (
                <div key={m.id} className="pair">
                  <Cell m={m} other={data.full[i]} />
                  {data.full[i] && <Cell m={data.full[i]} />}
                </div>
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}
