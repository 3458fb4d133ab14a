import type { Conversation } from "@message-store/core";
import { useQuery } from "@tanstack/react-query";
import { Link, NavLink } from "react-router";
import { getJson } from "../api.js";
import { formatTime } from "../format.js";
import { useInfo } from "../queries.js";
import { DeletedBadge } from "./DeletedBadge.js";
import { ExportButton } from "./ExportButton.js";
import { SoftDeleteButton } from "./SoftDeleteButton.js";
import { ErrorNote } from "./Status.js";

/** The conversation (one `GET /api/conversations/:id`), shared by the transcript and context tabs. */
export function useConversation(id: string) {
  return useQuery({
    queryKey: ["conversation", id],
    queryFn: () => getJson<Conversation>(`/api/conversations/${encodeURIComponent(id)}`),
  });
}

/**
 * Title, facts, tabs (transcript / context window) and, with writes allowed, delete / restore
 * and the export.
 */
export function ConversationHeader({ id }: { id: string }) {
  const conversation = useConversation(id);
  const info = useInfo();
  const base = `/conversations/${encodeURIComponent(id)}`;
  const c = conversation.data;
  if (conversation.error) {
    return (
      <header className="conversation-header">
        <h1>{id}</h1>
        <ErrorNote error={conversation.error} />
      </header>
    );
  }
  return (
    <header className="conversation-header">
      <h1>
        {c?.title ?? id}
        {c && <DeletedBadge deletedAt={c.deletedAt} />}
      </h1>
      {c && (
        <p className="facts">
          <span className="id">{c.id}</span> · user{" "}
          <Link to={`/conversations?user=${encodeURIComponent(c.userId)}`}>{c.userId}</Link>
          {c.agentId !== null && (
            <>
              {" "}
              · agent{" "}
              <Link to={`/conversations?agent=${encodeURIComponent(c.agentId)}`}>{c.agentId}</Link>
            </>
          )}{" "}
          · created {formatTime(c.createdAt)} · last activity {formatTime(c.lastActivityAt)} UTC
          {c.tags.map((t) => (
            <span key={t} className="chip">
              {t}
            </span>
          ))}
        </p>
      )}
      <div className="tabs">
        <NavLink to={base} end>
          Transcript
        </NavLink>
        <NavLink to={`${base}/context`}>Context window</NavLink>
        <span className="spacer" />
        {c && info.data?.allowWrites && info.data.features.softDelete && (
          <SoftDeleteButton conversation={c} />
        )}
        {info.data?.allowWrites && <ExportButton id={id} />}
      </div>
    </header>
  );
}
