import type { Conversation, MessageStore, Page } from "@message-store/core";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { WITH_DELETED } from "../../walk.js";
import type { ConversationList } from "../api-types.js";
import { badRequest, limitParam, textParam } from "../params.js";
import type { StudioDeps } from "../studio-deps.js";

/**
 * The contract lists conversations by id or by user, not by agent. An agent's conversations
 * are read from its traces, newest first (one `getTurnTracesByAgentId` page), then each distinct
 * conversation of that page by primary key. A conversation can appear again on a later page
 * (an older turn of it); the page keeps only the first time it is seen in the list.
 */
async function agentConversations(
  store: MessageStore,
  agentId: string,
  limit: number,
  cursor: string | undefined,
): Promise<Page<Conversation>> {
  const traces = await store.getTurnTracesByAgentId(agentId, {
    limit,
    cursor: cursor ?? null,
    ...WITH_DELETED,
  });
  const ids = [...new Set(traces.items.map((t) => t.conversationId))];
  const conversations = await Promise.all(ids.map((id) => store.getConversation(id, WITH_DELETED)));
  return {
    items: conversations.filter((c): c is Conversation => c !== null),
    nextCursor: traces.nextCursor,
  };
}

/**
 * `GET /api/conversations`: one page of conversations.
 * - `?user=<id>`: that user's, most recent activity first (`getConversationsByUserId`);
 * - `?agent=<id>`: conversations of that agent's turns, most recent turn first (see above);
 * - neither: every conversation by id (`listConversations`), the only order the contract has
 *   for the whole store.
 * `?cursor` continues, `?limit` (default 50, at most 200; for `agent`, turns read per page).
 * Soft-deleted conversations are included (the page marks them by `deletedAt`).
 * `GET /api/conversations/:id`: one conversation (404 when unknown).
 */
export function conversationRoutes({ store }: StudioDeps): Hono {
  return new Hono()
    .get("/", async (c) => {
      const user = textParam(c, "user");
      const agent = textParam(c, "agent");
      const cursor = textParam(c, "cursor");
      const limit = limitParam(c, 50, 200);
      if (user !== undefined && agent !== undefined) {
        throw badRequest(`filter by "user" or by "agent", not both`);
      }
      let body: ConversationList;
      if (user !== undefined) {
        const page = await store.getConversationsByUserId(user, {
          limit,
          cursor: cursor ?? null,
          ...WITH_DELETED,
        });
        body = { order: "recent-activity", ...page };
      } else if (agent !== undefined) {
        body = { order: "recent-turn", ...(await agentConversations(store, agent, limit, cursor)) };
      } else {
        const page = await store.listConversations({
          limit,
          cursor: cursor ?? null,
          ...WITH_DELETED,
        });
        body = { order: "id", ...page };
      }
      return c.json(body);
    })
    .get("/:id", async (c) => {
      const conversation = await store.getConversation(c.req.param("id"), WITH_DELETED);
      if (conversation === null) {
        throw new HTTPException(404, { message: "no conversation with this id" });
      }
      return c.json(conversation);
    });
}
