import { useQuery } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import type { SimilarMessages } from "../../../src/studio/api-types.js";
import { getJson } from "../api.js";
import { ErrorNote, Loading } from "../components/Status.js";
import { TextSearchResults } from "../components/TextSearchResults.js";
import { formatTime } from "../format.js";
import { useInfo } from "../queries.js";

const SCOPES = {
  conversation: "its conversation",
  user: "its user's messages",
  all: "the whole store",
};

/** Text search (`searchConversations`), where the store offers it: a box, results below. */
function TextSearch() {
  const info = useInfo();
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const user = params.get("user") ?? "";
  if (!info.data) return null;
  if (!info.data.features.textSearch) {
    return <p className="empty">This store has no text search ({info.data.storage}).</p>;
  }
  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = String(form.get("q") ?? "").trim();
    const owner = String(form.get("user") ?? "").trim();
    setParams({ ...(text === "" ? {} : { q: text }), ...(owner === "" ? {} : { user: owner }) });
  }
  return (
    <>
      <form className="filters" onSubmit={apply} key={`${q}|${user}`}>
        <input
          name="q"
          type="search"
          defaultValue={q}
          placeholder="text in titles and messages"
          aria-label="search text"
        />
        <input
          name="user"
          defaultValue={user}
          placeholder="user id (optional)"
          aria-label="user id"
        />
        <button type="submit">Search</button>
      </form>
      {q !== "" ? <TextSearchResults q={q} user={user} /> : null}
    </>
  );
}

/**
 * Text search over titles and contents, and semantic search: messages similar to one message,
 * by its stored embedding (`searchMessages`).
 */
export function SearchPage() {
  const info = useInfo();
  const [params, setParams] = useSearchParams();
  const message = params.get("message") ?? "";
  const scope = (params.get("scope") ?? "conversation") as keyof typeof SCOPES;
  const similar = useQuery({
    queryKey: ["similar", message, scope],
    queryFn: () => getJson<SimilarMessages>("/api/search/similar", { message, scope, limit: 20 }),
    enabled: message !== "" && info.data?.semanticSearch === true,
  });
  return (
    <section>
      <h1>Search</h1>
      <TextSearch />
      <h2>Similar messages</h2>
      {info.data && !info.data.semanticSearch && (
        <p className="empty">This store has no semantic search ({info.data.storage}).</p>
      )}
      {info.data?.semanticSearch && message === "" && (
        <p className="empty">
          Open a conversation and press <b>Similar</b> on a message with an embedding to find the
          messages closest to it.
        </p>
      )}
      {message !== "" && (
        <div className="filters">
          <span>
            Messages similar to <span className="id">{message}</span> in
          </span>
          <select
            value={scope}
            aria-label="scope"
            onChange={(e) => setParams({ message, scope: e.target.value })}
          >
            {Object.entries(SCOPES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      )}
      {similar.error ? <ErrorNote error={similar.error} /> : null}
      {similar.isFetching && !similar.data ? <Loading what="similar messages" /> : null}
      {similar.data && (
        <>
          <blockquote className="content boxed">{similar.data.source.originalContent}</blockquote>
          <table className="grid" aria-label="similar messages">
            <thead>
              <tr>
                <th>score</th>
                <th>message</th>
                <th>role</th>
                <th>conversation</th>
                <th>time (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {similar.data.hits.map((hit) => (
                <tr key={hit.message.id}>
                  <td className="num">{hit.score.toFixed(4)}</td>
                  <td className="clip">{hit.message.originalContent}</td>
                  <td>{hit.message.role}</td>
                  <td>
                    <Link
                      to={`/conversations/${encodeURIComponent(hit.message.conversationId)}#m-${hit.message.id}`}
                    >
                      {hit.message.conversationId}
                    </Link>
                  </td>
                  <td className="num">{formatTime(hit.message.timestamp)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
