import type { Conversation } from "@message-store/core";
import { Link } from "react-router";
import { DeletedBadge } from "./DeletedBadge.js";

/** A conversation in a list: its title (or id) linking to the transcript, its id, deleted mark. */
export function ConversationTitle({ c }: { c: Conversation }) {
  return (
    <>
      <Link to={`/conversations/${encodeURIComponent(c.id)}`}>{c.title ?? c.id}</Link>
      <DeletedBadge deletedAt={c.deletedAt} />
      <div className="id">{c.id}</div>
    </>
  );
}
