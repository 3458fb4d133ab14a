import { z } from "zod";
import type { Conversation } from "./conversation.js";
import type { Message } from "./message.js";
import { IdSchema, TextSchema } from "./primitives.js";
import { PageOptionsSchema } from "./queries.js";

/** Longest text `searchConversations` accepts, in UTF-16 code units. */
export const MAX_SEARCH_TEXT = 1000;

/**
 * Options of `searchConversations`: the text to find (1–{@link MAX_SEARCH_TEXT} characters,
 * matched as a substring, ASCII letters case-insensitively; see `MessageStoreApi`), the filters
 * applied before matching, and a page (`limit` 1–1000, default 20).
 */
export const TextSearchQuerySchema = PageOptionsSchema.extend({
  text: TextSchema.min(1, "text must not be empty").max(MAX_SEARCH_TEXT),
  /** Only this user's conversations. */
  userId: IdSchema.optional(),
  /** Only this tenant's conversations. */
  tenantId: IdSchema.optional(),
  /** Soft-deleted conversations are listed, and soft-deleted messages match, too. */
  includeDeleted: z.boolean().default(false),
  limit: z.number().int().min(1).max(1000).default(20),
});
export type TextSearchQueryInput = z.input<typeof TextSearchQuerySchema>;
/** The validated query handed to adapters (without paging keys). */
export type TextSearchFilter = Omit<z.output<typeof TextSearchQuerySchema>, "limit" | "cursor">;

/** One conversation found by `searchConversations`. */
export interface TextSearchHit {
  conversation: Conversation;
  /** The conversation's `title` contains the text. */
  titleMatch: boolean;
  /**
   * The newest message (greatest `(timestamp, sequence)`) whose `originalContent` contains the
   * text, or `null` when only the title does.
   */
  message: Message | null;
}
