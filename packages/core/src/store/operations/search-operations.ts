import { SearchQuerySchema } from "../../models/queries.js";
import { TextSearchQuerySchema } from "../../models/text-search.js";
import { cursors } from "../../paging/cursor.js";
import { compareIds } from "../../paging/ordering.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import type { SearchApi } from "../contract/search.js";
import type { Implementation } from "../store-context.js";
import { EMPTY, identity } from "./page-results.js";

/** How the store carries out each method of the family (see `SearchApi`). */
export const SEARCH_METHODS = {
  async searchMessages(ctx, query) {
    const { userId, tenantId, ...rest } = ctx.parse(SearchQuerySchema, query, "search query");
    ctx.require("semanticSearch");
    const scope = ctx.filter({ userId, tenantId });
    if (!scope) return [];
    const hits = await ctx.call("searchMessages", { scope, query: rest });
    return hits
      .map((h) => ({ message: h.message, score: Math.round(h.score * 1e9) / 1e9 }))
      .sort((a, b) => b.score - a.score || compareIds(a.message.id, b.message.id))
      .slice(0, rest.limit);
  },

  async searchConversations(ctx, query) {
    const { limit, cursor, userId, tenantId, ...filter } = ctx.parse(
      TextSearchQuerySchema,
      query,
      "text search",
    );
    ctx.require("textSearch");
    const scope = ctx.filter({ userId, tenantId });
    const after = decodeCursor(cursor, cursors.conversation.decode, ctx.name);
    if (!scope) return EMPTY;
    const page = { after, take: limit + 1 };
    const rows = await ctx.call("searchConversations", { scope, filter, page });
    return toPage(rows, limit, identity, (hit) => cursors.conversation.encode(hit.conversation));
  },
} satisfies Implementation<SearchApi>;
