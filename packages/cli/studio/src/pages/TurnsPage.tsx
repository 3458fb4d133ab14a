import { useInfiniteQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router";
import type { TraceList } from "../../../src/studio/api-types.js";
import { getJson } from "../api.js";
import { AgentSelect } from "../components/AgentSelect.js";
import { ErrorNote, Loading, LoadMore } from "../components/Status.js";
import { TurnTable } from "../components/TurnTable.js";

/** Every turn, newest first (`queryTurnTraces`), by agent and with errors only if asked. */
export function TurnsPage() {
  const [params, setParams] = useSearchParams();
  const agent = params.get("agent") ?? "";
  const errors = params.get("errors") === "true";
  const list = useInfiniteQuery({
    queryKey: ["traces", { agent, errors }],
    queryFn: ({ pageParam }) =>
      getJson<TraceList>("/api/traces", {
        agent,
        errors: errors ? true : undefined,
        cursor: pageParam,
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const update = (key: string, value: string) =>
    setParams((p) => {
      if (value === "") p.delete(key);
      else p.set(key, value);
      return p;
    });
  const turns = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section>
      <h1>Turns</h1>
      <div className="filters">
        <AgentSelect value={agent} onChange={(a) => update("agent", a)} />
        <label>
          <input
            type="checkbox"
            checked={errors}
            onChange={(e) => update("errors", e.target.checked ? "true" : "")}
          />{" "}
          with errors only
        </label>
      </div>
      <p className="muted">Newest first; open a turn for its waterfall.</p>
      {list.error ? <ErrorNote error={list.error} /> : null}
      {list.isPending ? <Loading what="turns" /> : null}
      {list.data && turns.length === 0 ? <p className="empty">No turns.</p> : null}
      {turns.length > 0 && <TurnTable turns={turns} label="turns" />}
      {list.data && (
        <LoadMore
          hasMore={list.hasNextPage}
          loading={list.isFetchingNextPage}
          onMore={() => list.fetchNextPage()}
        />
      )}
    </section>
  );
}
