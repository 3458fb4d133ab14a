import type { ConversationFilter, TurnTraceFilter, UsageQuery } from "@message-store/core";
import type {
  ConversationKey,
  MessageKey,
  PageRequest,
  TraceKey,
} from "@message-store/core/adapter";
import type { Filter, FindOptions, Sort } from "mongodb";
import type { ConversationDoc, MessageDoc, TurnTraceDoc } from "./documents.js";
import { idKey } from "./id-key.js";

/**
 * Find options for one page. `batchSize` equals the page size so the whole page comes back in the
 * first reply (one round trip) instead of the server's default first batch of 101 documents;
 * an unlimited read asks for everything in that reply too (the server still caps a reply at 16 MiB).
 */
export function pageOptions(sort: Sort, take: number | null): FindOptions {
  return take === null ? { sort, batchSize: UNLIMITED } : { sort, limit: take, batchSize: take };
}

/** Largest batch asked for; replies are capped at 16 MiB by the server anyway. */
export const UNLIMITED = 1_000_000;

/** Conversations order: `lastActivityAt` descending, then id ascending (by code point). */
export const CONVERSATION_ORDER = { lastActivityAt: -1, idKey: 1 } as const;
/** `listConversations` order: id ascending (by code point). */
export const CONVERSATION_ID_ORDER = { idKey: 1 } as const;
/** Messages order: `timestamp`, then `sequence`, ascending. */
export const MESSAGE_ORDER = { timestamp: 1, sequence: 1 } as const;
/** Traces order: `timestamp` descending, then id descending (by code point). */
export const TRACE_ORDER = { timestamp: -1, idKey: -1 } as const;

/**
 * The `deletedAt` condition of a read: live records only, unless soft-deleted ones are asked for.
 * `deletedAt: null` also matches a document without the field (written before soft delete).
 */
export function liveUnless(includeDeleted: boolean): { deletedAt?: null } {
  return includeDeleted ? {} : { deletedAt: null };
}

/** The conditions of a conversation filter (tenant, soft delete). */
function conversationConditions(filter: ConversationFilter): Filter<ConversationDoc> {
  const where: Filter<ConversationDoc> = liveUnless(filter.includeDeleted);
  if (filter.tenantId !== undefined) where.tenantId = filter.tenantId;
  return where;
}

/** A user's conversations matching `filter` after the cursor key. */
export function conversationPage(
  userId: string,
  page: PageRequest<ConversationKey>,
  filter: ConversationFilter,
): Filter<ConversationDoc> {
  const where = { userId, ...conversationConditions(filter) };
  const a = page.after;
  if (!a) return where;
  return {
    ...where,
    $or: [
      { lastActivityAt: { $lt: a.lastActivityAt } },
      { lastActivityAt: a.lastActivityAt, idKey: { $gt: idKey(a.id) } },
    ],
  };
}

/** All conversations (or one user's) matching `conditions` with id after the cursor. */
export function conversationIdPage(
  userId: string | null,
  page: PageRequest<string>,
  conditions: ConversationFilter,
): Filter<ConversationDoc> {
  const filter = conversationConditions(conditions);
  if (userId !== null) filter.userId = userId;
  if (page.after !== null) filter.idKey = { $gt: idKey(page.after) };
  return filter;
}

/** A conversation's messages (live ones unless `includeDeleted`) after the cursor key. */
export function messagePage(
  conversationId: string,
  page: PageRequest<MessageKey>,
  includeDeleted: boolean,
): Filter<MessageDoc> {
  const where = { conversationId, ...liveUnless(includeDeleted) };
  const a = page.after;
  if (!a) return where;
  return {
    ...where,
    $or: [
      { timestamp: { $gt: a.timestamp } },
      { timestamp: a.timestamp, sequence: { $gt: a.sequence } },
    ],
  };
}

/**
 * The `queryTurnTraces` filter (same semantics as core's `matchesTraceFilter`) plus the cursor.
 * Array fields match when any element does (`toolTraces.toolName`, `llmCalls.model`).
 */
export function tracePage(f: TurnTraceFilter, page: PageRequest<TraceKey>): Filter<TurnTraceDoc> {
  const and: Filter<TurnTraceDoc>[] = [];
  const where: Record<string, unknown> = liveUnless(f.includeDeleted);
  if (f.agentId !== undefined) where.agentId = f.agentId;
  if (f.conversationId !== undefined) where.conversationId = f.conversationId;
  if (f.userId !== undefined) where.userId = f.userId;
  if (f.tenantId !== undefined) where.tenantId = f.tenantId;
  const time: Record<string, number> = {};
  if (f.since !== undefined) time.$gte = f.since;
  if (f.until !== undefined) time.$lt = f.until;
  if (Object.keys(time).length > 0) where.timestamp = time;
  if (f.minTotalTokens !== undefined) where.totalTokens = { $gte: f.minTotalTokens };
  if (f.toolName !== undefined) where["toolTraces.toolName"] = f.toolName;
  if (f.model !== undefined) where["llmCalls.model"] = f.model;
  if (f.hasErrors === true) where["errors.0"] = { $exists: true };
  if (f.hasErrors === false) where.errors = { $size: 0 };
  and.push(where as Filter<TurnTraceDoc>);
  const a = page.after;
  if (a) {
    and.push({
      $or: [
        { timestamp: { $lt: a.timestamp } },
        { timestamp: a.timestamp, idKey: { $lt: idKey(a.id) } },
      ],
    });
  }
  return and.length === 1 ? and[0]! : { $and: and };
}

/** The traces a usage summary covers. */
export function usageFilter(q: UsageQuery): Filter<TurnTraceDoc> {
  const filter: Filter<TurnTraceDoc> = {
    timestamp: { $gte: q.since, $lt: q.until },
    ...liveUnless(q.includeDeleted),
  };
  if (q.agentId !== undefined) filter.agentId = q.agentId;
  if (q.userId !== undefined) filter.userId = q.userId;
  if (q.tenantId !== undefined) filter.tenantId = q.tenantId;
  return filter;
}
