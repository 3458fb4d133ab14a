import { z } from "zod";
import { EmbeddingSchema, type Message, MessageRoleSchema } from "./message.js";
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

/** `true`: soft-deleted records are returned too. Default `false`: they are hidden. */
const IncludeDeletedSchema = z.boolean().default(false);

/** Options of a read by id (`getConversation`, `getMessage`, `getTurnTraceByMessageId`). */
export const ReadOptionsSchema = z.strictObject({ includeDeleted: IncludeDeletedSchema });
export type ReadOptions = z.input<typeof ReadOptionsSchema>;

/** Options of `getMessagesByConversationId`. */
export const MessageListOptionsSchema = PageOptionsSchema.extend({
  includeDeleted: IncludeDeletedSchema,
});
export type MessageListOptions = z.input<typeof MessageListOptionsSchema>;

/** Options of `getConversationsByUserId`: a page, only one tenant's, soft-deleted included or not. */
export const ConversationListOptionsSchema = PageOptionsSchema.extend({
  tenantId: IdSchema.optional(),
  includeDeleted: IncludeDeletedSchema,
});
export type ConversationListOptions = z.input<typeof ConversationListOptionsSchema>;

/** Options of `listConversations`: every conversation, or one user's or tenant's, by id ascending. */
export const ListConversationsOptionsSchema = ConversationListOptionsSchema.extend({
  userId: IdSchema.optional(),
});
export type ListConversationsOptions = z.input<typeof ListConversationsOptionsSchema>;

/** The filter a conversation list hook gets (besides the user of `getConversationsByUserId`). */
export interface ConversationFilter {
  tenantId?: string;
  includeDeleted: boolean;
}

/** Options of `getTurnTracesByAgentId`: `since` inclusive, `until` exclusive. */
export const AgentTraceOptionsSchema = PageOptionsSchema.extend({
  since: TimestampSchema.optional(),
  until: TimestampSchema.optional(),
  /** Matches `TurnTrace.tenantId`. */
  tenantId: IdSchema.optional(),
  includeDeleted: IncludeDeletedSchema,
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
  /** Matches `TurnTrace.tenantId`. */
  tenantId: IdSchema.optional(),
  /** Counts soft-deleted traces too. */
  includeDeleted: IncludeDeletedSchema,
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

/** What `deleteUserData`, `purgeDeleted` and the other hard deletes removed. */
export interface DeletedCounts {
  conversations: number;
  messages: number;
  turnTraces: number;
}

/** Options of `deleteUserData`: only the user's conversations of one tenant. */
export const DeleteUserDataOptionsSchema = z.strictObject({ tenantId: IdSchema.optional() });
export type DeleteUserDataOptions = z.input<typeof DeleteUserDataOptionsSchema>;

/** Options of `purgeDeleted`: what was soft-deleted strictly before `before` (epoch ms). */
export const PurgeOptionsSchema = z.strictObject({
  before: TimestampSchema,
  /** Only this user's records. */
  userId: IdSchema.optional(),
  /** Only this tenant's records. */
  tenantId: IdSchema.optional(),
});
export type PurgeOptions = z.input<typeof PurgeOptionsSchema>;

/**
 * Which records a call may touch: all of them (`{}`), or only those of one user and/or tenant
 * (a scoped view's), decided by the record's own `userId` and `tenantId`.
 */
export interface Scope {
  readonly userId?: string;
  readonly tenantId?: string;
}

/** Options of `searchMessages`. Flagged messages and messages without an embedding of the same length are skipped. */
export const SearchQuerySchema = z.strictObject({
  embedding: EmbeddingSchema,
  userId: IdSchema.optional(),
  tenantId: IdSchema.optional(),
  conversationId: IdSchema.optional(),
  includeDeleted: IncludeDeletedSchema,
  limit: LimitSchema.max(1000).default(10),
});
export type SearchQueryInput = z.input<typeof SearchQuerySchema>;
export type SearchQuery = z.output<typeof SearchQuerySchema>;

/** One search hit: cosine similarity in [-1, 1], highest first, ties by message id ascending. */
export interface SearchHit {
  message: Message;
  score: number;
}

/**
 * How long assistant messages are shortened on load: `true` or `{}` for the defaults
 * ({@link DEFAULT_MAX_CHARS}, {@link DEFAULT_KEEP_CHARS}), or either number given.
 */
export const CompressSchema = z.union([
  z.boolean(),
  z.strictObject({
    /** Assistant messages longer than this many characters are compressed. Default 1000. */
    maxChars: z.number().int().min(1).optional(),
    /** Characters kept from the head and from the tail. Default 200. */
    keepChars: z.number().int().min(0).optional(),
  }),
]);
export type CompressInput = z.input<typeof CompressSchema>;

/** `getImmediateContext` options. */
export const ContextOptionsSchema = z.strictObject({ compress: CompressSchema.optional() });
export type ContextOptions = z.input<typeof ContextOptionsSchema>;

/** `loadSessionMessages` options. */
export const LoadSessionOptionsSchema = ContextOptionsSchema;
export type LoadSessionOptions = z.input<typeof LoadSessionOptionsSchema>;

/** Options of `listPendingEmbeddings`. */
export const PendingEmbeddingsOptionsSchema = PageOptionsSchema.extend({
  /** Roles to embed. Default `["user", "assistant"]`: tool and system messages are not embedded. */
  roles: z.array(MessageRoleSchema).min(1).default(["user", "assistant"]),
  /** Flagged messages are pending too. Default `false`. */
  includeFlagged: z.boolean().default(false),
  /** Only this user's messages. */
  userId: IdSchema.optional(),
  /** Only this tenant's messages. */
  tenantId: IdSchema.optional(),
});
export type PendingEmbeddingsOptions = z.input<typeof PendingEmbeddingsOptionsSchema>;
/** The validated filter handed to adapters (without paging keys). */
export type PendingEmbeddingsFilter = Omit<
  z.output<typeof PendingEmbeddingsOptionsSchema>,
  "limit" | "cursor"
>;
