import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { SimilarMessages, TextSearchPage } from "../api-types.js";
import { badRequest, limitParam, textParam } from "../params.js";
import { snippet } from "../snippet.js";
import type { StudioDeps } from "../studio-deps.js";
import { messageView } from "../views.js";

const SCOPES = ["conversation", "user", "all"] as const;

/**
 * `GET /api/search/similar?message=<id>&scope=conversation|user|all&limit=20`: messages ranked by
 * cosine similarity to the stored embedding of one message (`getMessage`, then `searchMessages`
 * within its conversation, its user's messages, or the whole store). 400 when the store has no
 * semantic search or the message no embedding; 404 for an unknown message.
 *
 * `GET /api/search/text?q=<text>&user=<id>&cursor=&limit=20`: conversations whose title or
 * messages contain the text (ASCII letters case-insensitively), most recent activity first, with
 * the newest matching message: one `searchConversations` call per page, soft-deleted
 * conversations and messages included (the page marks them). 400 without `q` or when the store
 * has no text search.
 */
export function searchRoutes({ store }: StudioDeps): Hono {
  return new Hono()
    .get("/text", async (c) => {
      if (store.capabilities.textSearch !== true) {
        throw badRequest("this store has no text search");
      }
      const text = textParam(c, "q");
      if (text === undefined) throw badRequest(`"q" is required`);
      const user = textParam(c, "user");
      const page = await store.searchConversations({
        text,
        includeDeleted: true,
        limit: limitParam(c, 20, 200),
        cursor: textParam(c, "cursor") ?? null,
        ...(user === undefined ? {} : { userId: user }),
      });
      const body: TextSearchPage = {
        items: page.items.map((hit) => ({
          conversation: hit.conversation,
          titleMatch: hit.titleMatch,
          message: hit.message === null ? null : messageView(hit.message),
          snippet: hit.message === null ? null : snippet(hit.message.originalContent, text),
        })),
        nextCursor: page.nextCursor,
      };
      return c.json(body);
    })
    .get("/similar", async (c) => {
      if (!store.capabilities.semanticSearch) {
        throw badRequest("this store has no semantic search");
      }
      const id = textParam(c, "message");
      if (id === undefined) throw badRequest(`"message" is required`);
      const scope = (textParam(c, "scope") ?? "conversation") as SimilarMessages["scope"];
      if (!SCOPES.includes(scope)) throw badRequest(`"scope" must be ${SCOPES.join(", ")}`);
      const source = await store.getMessage(id);
      if (source === null) throw new HTTPException(404, { message: "no message with this id" });
      if (source.embedding === null) throw badRequest("this message has no embedding");
      const hits = await store.searchMessages({
        embedding: source.embedding,
        limit: limitParam(c, 20, 200),
        ...(scope === "conversation" ? { conversationId: source.conversationId } : {}),
        ...(scope === "user" ? { userId: source.userId } : {}),
      });
      const body: SimilarMessages = {
        source: messageView(source),
        scope,
        hits: hits.map((hit) => ({ message: messageView(hit.message), score: hit.score })),
      };
      return c.json(body);
    });
}
