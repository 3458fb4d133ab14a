import { z } from "zod";
import { EmbeddingSchema, type Message } from "./message.js";
import { CountSchema, IdSchema, TextSchema, TimestampSchema } from "./primitives.js";

/** A page of results. Pass `nextCursor` back as `cursor` to continue; `null` means there is no more. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const LimitSchema = z.number().int().min(1).max(1_000_000);
const CursorSchema = z.string().min(1).max(4096);

/** `limit` omitted means everything that is left. */
export const PageOptionsSchema = z.strictObject({
  limit: LimitSchema.optional(),
  cursor: CursorSchema.nullable().optional(),
});
export type PageOptions = z.input<typeof PageOptionsSchema>;

/** Options of `listConversations`: every conversation, or one user's, by id ascending. */
export const ListConversationsOptionsSchema = PageOptionsSchema.extend({
  userId: IdSchema.optional(),
});
export type ListConversationsOptions = z.input<typeof ListConversationsOptionsSchema>;

/** Options of `getTurnTracesByAgentId`: `since` inclusive, `until` exclusive. */
export const AgentTraceOptionsSchema = PageOptionsSchema.extend({
  since: TimestampSchema.optional(),
  until: TimestampSchema.optional(),
});
export type AgentTraceOptions = z.input<typeof AgentTraceOptionsSchema>;

/** Filters of `queryTurnTraces`; every given filter must match (AND). */
export const TurnTraceQuerySchema = AgentTraceOptionsSchema.extend({
  agentId: IdSchema.optional(),
  conversationId: IdSchema.optional(),
  /** Matches `TurnTrace.userId`. */
  userId: IdSchema.optional(),
  /** `totalTokens >= minTotalTokens`. */
  minTotalTokens: CountSchema.optional(),
  /** Some tool trace has this `toolName`. */
  toolName: TextSchema.min(1).optional(),
  /** Some LLM call used this `model`. */
  model: TextSchema.min(1).optional(),
  /** `true`: `errors` is non-empty; `false`: it is empty. */
  hasErrors: z.boolean().optional(),
});
export type TurnTraceQueryInput = z.input<typeof TurnTraceQuerySchema>;
/** The validated filter handed to adapters (without paging keys). */
export type TurnTraceFilter = Omit<z.output<typeof TurnTraceQuerySchema>, "limit" | "cursor">;

/** Options of `summarizeUsage`. Buckets are UTC hours or days; `since` inclusive, `until` exclusive. */
export const UsageQuerySchema = z.strictObject({
  agentId: IdSchema.optional(),
  /** Matches `TurnTrace.userId`. */
  userId: IdSchema.optional(),
  since: TimestampSchema,
  until: TimestampSchema,
  bucket: z.enum(["hour", "day"]),
});
export type UsageQueryInput = z.input<typeof UsageQuerySchema>;
export type UsageQuery = z.output<typeof UsageQuerySchema>;

/** Usage of one time bucket. Only buckets with at least one turn are returned, oldest first. */
export interface UsageBucket {
  /** Start of the bucket, epoch ms (UTC). */
  bucketStart: number;
  turns: number;
  /** Sum of `TurnTrace.totalTokens`. */
  totalTokens: number;
  /** Sums over every LLM call of the turns. */
  promptTokens: number;
  completionTokens: number;
  /** Sum of `LLMCallRecord.costUsd` (null counts 0), rounded to 1e-9. */
  costUsd: number;
  /** Mean of `TurnTrace.totalLatencyMs`, rounded to 1e-3. */
  avgLatencyMs: number;
  maxLatencyMs: number;
  /** Turns whose `errors` is non-empty. */
  turnsWithErrors: number;
}

/** What `deleteUserData` removed. */
export interface DeletedCounts {
  conversations: number;
  messages: number;
  turnTraces: number;
}

/** Options of `searchMessages`. Flagged messages and messages without an embedding of the same length are skipped. */
export const SearchQuerySchema = z.strictObject({
  embedding: EmbeddingSchema,
  userId: IdSchema.optional(),
  conversationId: IdSchema.optional(),
  limit: LimitSchema.max(1000).default(10),
});
export type SearchQueryInput = z.input<typeof SearchQuerySchema>;
export type SearchQuery = z.output<typeof SearchQuerySchema>;

/** One search hit: cosine similarity in [-1, 1], highest first, ties by message id ascending. */
export interface SearchHit {
  message: Message;
  score: number;
}

/** `getImmediateContext` options. */
export const ContextOptionsSchema = z.strictObject({
  compress: z
    .strictObject({
      /** Assistant messages longer than this many characters are compressed. */
      maxChars: z.number().int().min(1),
      /** Characters kept from the head and from the tail. */
      keepChars: z.number().int().min(0),
    })
    .optional(),
});
export type ContextOptions = z.input<typeof ContextOptionsSchema>;
