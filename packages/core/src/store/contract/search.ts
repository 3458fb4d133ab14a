import type { Page, SearchHit, SearchQuery, SearchQueryInput } from "../../models/queries.js";
import type {
  TextSearchFilter,
  TextSearchHit,
  TextSearchQueryInput,
} from "../../models/text-search.js";
import type { ConversationKey } from "../../paging/cursor.js";
import type { PageRequest } from "../../paging/page-request.js";
import type { FamilySpecs } from "./operation-spec.js";
import type { DriverRequest } from "./requests.js";

/** Search: semantic (capability `semanticSearch`) and text (capability `textSearch`). What the caller sees. */
export interface SearchApi {
  /**
   * Messages ranked by cosine similarity to `embedding` (highest first, ties by id ascending,
   * score rounded to 1e-9). The filters (`userId`, `tenantId`, `conversationId`) apply before
   * ranking, to each message as stored now. Flagged and soft-deleted messages, messages whose
   * embedding is `null`, and embeddings of another length are skipped. Core does the rounding,
   * the ordering and the `limit` cut: a driver's `searchMessages` returns raw cosine scores, in
   * any order, at least the `limit` best of them.
   * Throws `UnsupportedOperationError` unless `capabilities.semanticSearch`.
   */
  searchMessages(query: SearchQueryInput): Promise<SearchHit[]>;

  /**
   * Text search: the conversations whose `title`, or the `originalContent` of one of whose
   * messages, contains `text`, most recent activity first (`lastActivityAt` descending, then `id`
   * ascending, as `getConversationsByUserId`), paged with cursors (`limit` 1–1000, default
   * 20). Each hit says whether the title matched and carries the newest matching message
   * (greatest `(timestamp, sequence)`), or `null` when only the title matched.
   *
   * Matching is a plain substring test, identical on every adapter: ASCII letters `A`–`Z` match
   * `a`–`z` and every other character only itself (no Unicode case folding, no normalization;
   * `%`, `_`, `*` and the like are literal). `text` is 1–1000 characters, taken as given (not
   * trimmed). The filters (`userId`, `tenantId`) apply to each conversation as stored, before
   * matching and paging. Soft-deleted conversations are not listed and soft-deleted messages do
   * not match, unless `includeDeleted: true` (then both are). Flagged messages match: they are
   * part of the transcript (the hit's message says `isFlagged`). An empty result is an empty
   * page, never an error. Through a view (`forUser`, `forTenant`) the view's scope is passed
   * down as the filters; a contradicting filter gives an empty page.
   *
   * Cost: a substring test cannot use an ordinary index, so a search reads the text of the
   * conversations it walks (newest activity first) until the page is full: a page of frequent
   * words is cheap, a rare or absent word reads every message in the filters' scope (a
   * sequential scan on PostgreSQL and MongoDB; memory on the JSON store). Narrow it with `userId`.
   * Throws `UnsupportedOperationError` unless `capabilities.textSearch`.
   */
  searchConversations(query: TextSearchQueryInput): Promise<Page<TextSearchHit>>;
}

/** Search: semantic (capability `semanticSearch`) and text (capability `textSearch`). What a driver implements. */
export interface SearchDriver {
  /**
   * `semanticSearch`: at least the top `query.limit` non-flagged (and, unless `includeDeleted`,
   * live) messages in the scope with an embedding of the query's length, under its filters
   * (applied before ranking), with their cosine similarity (`cosineSimilarity`). Core rounds,
   * re-sorts and cuts.
   */
  searchMessages?(
    request: DriverRequest & { query: Omit<SearchQuery, "userId" | "tenantId"> },
  ): Promise<SearchHit[]>;

  /**
   * `textSearch`. Conversations in the scope (soft-deleted ones only with `includeDeleted`) whose
   * title or some message (live unless `includeDeleted`, flagged or not) contains `filter.text`
   * as core's `containsFolded(text, foldAscii(filter.text))` decides, after `page.after` in
   * `(lastActivityAt desc, id asc)` order, at most `page.take`; each with `titleMatch` and the
   * newest matching message by `(timestamp, sequence)` (or `null`). Don't load the store into
   * memory: stop walking once `page.take` hits are found.
   */
  searchConversations?(
    request: DriverRequest & {
      filter: Omit<TextSearchFilter, "userId" | "tenantId">;
      page: PageRequest<ConversationKey>;
    },
  ): Promise<TextSearchHit[]>;
}

/** The driver operations of this family, as the operation table lists them. */
export const SEARCH = {
  searchMessages: { capability: "semanticSearch" },
  searchConversations: { capability: "textSearch" },
} as const satisfies FamilySpecs<SearchDriver>;
