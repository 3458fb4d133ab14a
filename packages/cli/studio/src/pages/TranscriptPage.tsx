import { useInfiniteQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useParams } from "react-router";
import type { TranscriptPage as Page, TraceSummary } from "../../../src/studio/api-types.js";
import { getJson } from "../api.js";
import { ConversationHeader, useConversation } from "../components/ConversationHeader.js";
import { MessageCard, pairTools } from "../components/MessageCard.js";
import { ErrorNote, Loading, LoadMore } from "../components/Status.js";

/** The transcript: every message in order, flagged ones marked, turns linked to their waterfall. */
export function TranscriptPage() {
  const id = useParams().id!;
  const conversation = useConversation(id);
  const [showEnrichment, setShowEnrichment] = useState(false);
  const transcript = useInfiniteQuery({
    queryKey: ["transcript", id],
    queryFn: ({ pageParam }) =>
      getJson<Page>(`/api/conversations/${encodeURIComponent(id)}/messages`, {
        cursor: pageParam,
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const { messages, traces } = useMemo(() => {
    const pages = transcript.data?.pages ?? [];
    const byMessage = new Map<string, TraceSummary>();
    for (const page of pages) for (const t of page.traces) byMessage.set(t.messageId, t);
    return { messages: pages.flatMap((p) => p.items), traces: byMessage };
  }, [transcript.data]);
  const pairs = useMemo(() => pairTools(messages), [messages]);

  return (
    <section>
      <ConversationHeader id={id} />
      {/* An unknown conversation: the header says so, and nothing else is shown. */}
      {conversation.isError ? null : (
        <>
          <label className="toggle">
            <input
              type="checkbox"
              checked={showEnrichment}
              onChange={(e) => setShowEnrichment(e.target.checked)}
            />{" "}
            Show enrichment (intent, sentiment, entities)
          </label>
          {transcript.error ? <ErrorNote error={transcript.error} /> : null}
          {transcript.isPending ? <Loading what="messages" /> : null}
          {transcript.data && messages.length === 0 ? <p className="empty">No messages.</p> : null}
          <div className="transcript">
            {messages.map((m) => (
              <MessageCard
                key={m.id}
                m={m}
                pairs={pairs}
                trace={traces.get(m.id)}
                showEnrichment={showEnrichment}
              />
            ))}
          </div>
          {transcript.data && (
            <LoadMore
              hasMore={transcript.hasNextPage}
              loading={transcript.isFetchingNextPage}
              onMore={() => transcript.fetchNextPage()}
            />
          )}
        </>
      )}
    </section>
  );
}
