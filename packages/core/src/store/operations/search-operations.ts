import { z } from "zod";
import { MAX_BATCH } from "../../canonical/input-fast-paths.js";
import type { Message } from "../../models/message.js";
import {
  type Page,
  type PendingEmbeddingsOptions,
  PendingEmbeddingsOptionsSchema,
  type SearchHit,
  type SearchQueryInput,
  SearchQuerySchema,
} from "../../models/queries.js";
import { type EmbeddingUpdateInput, EmbeddingUpdateSchema } from "../../models/session.js";
import {
  type TextSearchHit,
  type TextSearchQueryInput,
  TextSearchQuerySchema,
} from "../../models/text-search.js";
import { cursors } from "../../paging/cursor.js";
import { compareIds } from "../../paging/ordering.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import { rejectDuplicateIds } from "../../validation.js";
import type { StoreContext } from "../store-context.js";
import { EMPTY, identity, take } from "./page-results.js";

const EmbeddingUpdatesSchema = z.array(EmbeddingUpdateSchema).max(MAX_BATCH);

export async function searchMessages(
  ctx: StoreContext,
  query: SearchQueryInput,
): Promise<SearchHit[]> {
  const { userId, tenantId, ...rest } = ctx.parse(SearchQuerySchema, query, "search query");
  ctx.require("semanticSearch");
  const scope = ctx.filter({ userId, tenantId });
  if (!scope) return [];
  const hits = await ctx.call("searchMessages", { scope, query: rest });
  return hits
    .map((h) => ({ message: h.message, score: Math.round(h.score * 1e9) / 1e9 }))
    .sort((a, b) => b.score - a.score || compareIds(a.message.id, b.message.id))
    .slice(0, rest.limit);
}

export async function searchConversations(
  ctx: StoreContext,
  query: TextSearchQueryInput,
): Promise<Page<TextSearchHit>> {
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
}

export async function listPendingEmbeddings(
  ctx: StoreContext,
  options: PendingEmbeddingsOptions,
): Promise<Page<Message>> {
  const { limit, cursor, userId, tenantId, ...filter } = ctx.parse(
    PendingEmbeddingsOptionsSchema,
    options,
    "pending embeddings options",
  );
  ctx.require("embeddingQueue");
  const scope = ctx.filter({ userId, tenantId });
  const after = decodeCursor(cursor, cursors.messageId.decode, ctx.name);
  if (!scope) return EMPTY;
  const page = { after, take: take(limit) };
  const rows = await ctx.call("listPendingEmbeddings", { scope, filter, page });
  return toPage(rows, limit ?? null, identity, (m) => cursors.messageId.encode(m.id));
}

export async function setEmbeddings(
  ctx: StoreContext,
  updates: EmbeddingUpdateInput[],
): Promise<number> {
  const parsed = ctx.parse(EmbeddingUpdatesSchema, updates, "embedding updates");
  rejectDuplicateIds(parsed, "embedding updates", ctx.name);
  ctx.require("embeddingQueue");
  return parsed.length === 0 ? 0 : ctx.call("setEmbeddings", { updates: parsed });
}
