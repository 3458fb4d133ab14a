import type { Conversation } from "@message-store/core";
import { useInfiniteQuery } from "@tanstack/react-query";
import { type FormEvent, useMemo } from "react";
import { Link, useSearchParams } from "react-router";
import type { ConversationList, ConversationOrder } from "../../../src/studio/api-types.js";
import { getJson } from "../api.js";
import { ConversationTitle } from "../components/ConversationTitle.js";
import { ErrorNote, Loading, LoadMore } from "../components/Status.js";
import { TextSearchResults } from "../components/TextSearchResults.js";
import { formatTime } from "../format.js";
import { useAgents, useInfo } from "../queries.js";

const ORDER_LABEL: Record<ConversationOrder, string> = {
  id: "every conversation, by id",
  "recent-activity": "most recent activity first",
  "recent-turn": "most recent turn first (from the agent's traces)",
};

/**
 * Conversations: all (by id), one user's (recent activity first) or one agent's (recent turn
 * first); with a search text, those (of all users or one) whose title or messages contain it.
 */
export function ConversationsPage() {
  const [params, setParams] = useSearchParams();
  const user = params.get("user") ?? "";
  const agent = params.get("agent") ?? "";
  const q = params.get("q") ?? "";
  const agents = useAgents();
  const info = useInfo();
  const list = useInfiniteQuery({
    enabled: q === "",
    queryKey: ["conversations", { user, agent }],
    queryFn: ({ pageParam }) =>
      getJson<ConversationList>("/api/conversations", { user, agent, cursor: pageParam }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  // An agent's conversations are read from its turns: one can come back on a later page.
  const rows = useMemo(() => {
    const seen = new Map<string, Conversation>();
    for (const page of list.data?.pages ?? []) {
      for (const c of page.items) if (!seen.has(c.id)) seen.set(c.id, c);
    }
    return [...seen.values()];
  }, [list.data]);

  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const by = String(form.get("by"));
    const value = String(form.get(by) ?? "").trim();
    const text = String(form.get("q") ?? "").trim();
    // Text search covers every conversation or one user's: an agent filter does not apply.
    const filter =
      by === "all" || value === "" || (text !== "" && by === "agent") ? {} : { [by]: value };
    setParams(text === "" ? filter : { ...filter, q: text });
  }

  const by = user ? "user" : agent ? "agent" : "all";
  return (
    <section>
      <h1>Conversations</h1>
      <form className="filters" onSubmit={apply} key={`${user}|${agent}|${q}`}>
        <label>
          <input type="radio" name="by" value="all" defaultChecked={by === "all"} /> All
        </label>
        <label>
          <input type="radio" name="by" value="user" defaultChecked={by === "user"} /> User
          <input name="user" defaultValue={user} placeholder="user id" aria-label="user id" />
        </label>
        <label>
          <input type="radio" name="by" value="agent" defaultChecked={by === "agent"} /> Agent
          <input
            name="agent"
            defaultValue={agent}
            placeholder="agent id"
            aria-label="agent id"
            list="agents"
          />
        </label>
        <datalist id="agents">
          {agents.data?.agents.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        {info.data?.features.textSearch && (
          <input
            name="q"
            type="search"
            defaultValue={q}
            placeholder="text in titles and messages"
            aria-label="search text"
          />
        )}
        <button type="submit">Show</button>
      </form>
      {q !== "" ? <TextSearchResults q={q} user={user} /> : null}
      {q === "" && list.data && (
        <p className="muted">
          {rows.length} shown · {ORDER_LABEL[list.data.pages[0]!.order]}
        </p>
      )}
      {list.error ? <ErrorNote error={list.error} /> : null}
      {q === "" && list.isPending ? <Loading what="conversations" /> : null}
      {q === "" && list.data && rows.length === 0 ? (
        <p className="empty">No conversations.</p>
      ) : null}
      {q === "" && rows.length > 0 && (
        <table className="grid">
          <thead>
            <tr>
              <th>title</th>
              <th>user</th>
              <th>agent</th>
              <th>tags</th>
              <th>last activity (UTC)</th>
              <th>created (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id}>
                <td>
                  <ConversationTitle c={c} />
                </td>
                <td>
                  <Link to={`/conversations?user=${encodeURIComponent(c.userId)}`}>{c.userId}</Link>
                </td>
                <td>
                  {c.agentId === null ? (
                    <span className="muted">—</span>
                  ) : (
                    <Link to={`/conversations?agent=${encodeURIComponent(c.agentId)}`}>
                      {c.agentId}
                    </Link>
                  )}
                </td>
                <td>
                  {c.tags.map((t) => (
                    <span key={t} className="chip">
                      {t}
                    </span>
                  ))}
                </td>
                <td className="num">{formatTime(c.lastActivityAt)}</td>
                <td className="num">{formatTime(c.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {q === "" && list.data && (
        <LoadMore
          hasMore={list.hasNextPage}
          loading={list.isFetchingNextPage}
          onMore={() => list.fetchNextPage()}
        />
      )}
    </section>
  );
}
