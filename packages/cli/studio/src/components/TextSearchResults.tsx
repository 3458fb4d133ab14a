import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import type { TextSearchPage, TextSearchRow } from "../../../src/studio/api-types.js";
import { getJson } from "../api.js";
import { formatTime } from "../format.js";
import { ConversationTitle } from "./ConversationTitle.js";
import { DeletedBadge } from "./DeletedBadge.js";
import { ErrorNote, Loading, LoadMore } from "./Status.js";

function Match({ row }: { row: TextSearchRow }) {
  if (row.message === null || row.snippet === null) return <span className="muted">title</span>;
  const m = row.message;
  const { before, match, after } = row.snippet;
  const href = `/conversations/${encodeURIComponent(m.conversationId)}#m-${m.id}`;
  return (
    <div className="match">
      <Link to={href} className={`role role-${m.role}`}>
        {m.role}
      </Link>
      {m.isFlagged && <span className="badge bad">⚑ flagged</span>}
      <DeletedBadge deletedAt={m.deletedAt} />{" "}
      <span className="snippet">
        {before}
        <mark>{match}</mark>
        {after}
      </span>
    </div>
  );
}

/**
 * The conversations whose title or messages contain `q` (one user's with `user`), most recent
 * activity first, each with the newest matching message: one `GET /api/search/text` per page.
 */
export function TextSearchResults({ q, user }: { q: string; user: string }) {
  const search = useInfiniteQuery({
    queryKey: ["text-search", { q, user }],
    queryFn: ({ pageParam }) =>
      getJson<TextSearchPage>("/api/search/text", { q, user, cursor: pageParam }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const rows = search.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      {search.data && (
        <p className="muted">
          {rows.length} shown · conversations whose title or messages contain “{q}”
          {user ? ` (user ${user})` : ""}, most recent activity first
        </p>
      )}
      {search.error ? <ErrorNote error={search.error} /> : null}
      {search.isPending ? <Loading what="search results" /> : null}
      {search.data && rows.length === 0 ? <p className="empty">Nothing matches.</p> : null}
      {rows.length > 0 && (
        <table className="grid" aria-label="search results">
          <thead>
            <tr>
              <th>title</th>
              <th>user</th>
              <th>newest match</th>
              <th>last activity (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.conversation.id}>
                <td>
                  <ConversationTitle c={row.conversation} />
                </td>
                <td>{row.conversation.userId}</td>
                <td>
                  <Match row={row} />
                </td>
                <td className="num">{formatTime(row.conversation.lastActivityAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {search.data && (
        <LoadMore
          hasMore={search.hasNextPage}
          loading={search.isFetchingNextPage}
          onMore={() => search.fetchNextPage()}
        />
      )}
    </>
  );
}
