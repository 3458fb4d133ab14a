import { SearchQuerySchema } from "../../models/queries.js";
import { type TextSearchHit, TextSearchQuerySchema } from "../../models/text-search.js";
import { cursors } from "../../paging/cursor.js";
import { compareIds } from "../../paging/ordering.js";
import type { SearchApi } from "../contract/search.js";
import type { Implementation } from "../store-context.js";

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
    const list = { limit, cursor, userId, tenantId };
    const keyOf = (hit: TextSearchHit) => hit.conversation;
    return ctx.list("searchConversations", list, cursors.conversation, keyOf, { filter });
  },
} satisfies Implementation<SearchApi>;
