import type { Scope, UsageQuery } from "@message-store/core";
import type {
  ConversationKey,
  MessageKey,
  PageRequest,
  TraceFilter,
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

/**
 * The scope as conditions on a record's own owner fields: every record carries its
 * conversation's `userId` and `tenantId`, so one equality per scoped owner confines any read or
 * write to the scope inside the same command (the `{}` scope adds nothing).
 */
export function inScope(scope: Scope): { userId?: string; tenantId?: string } {
  const where: { userId?: string; tenantId?: string } = {};
  if (scope.userId !== undefined) where.userId = scope.userId;
  if (scope.tenantId !== undefined) where.tenantId = scope.tenantId;
  return where;
}

/** A user's conversations (`scope.userId`, of `scope.tenantId` if set) after the cursor key. */
export function conversationPage(
  scope: Scope & { userId: string },
  includeDeleted: boolean,
  page: PageRequest<ConversationKey>,
): Filter<ConversationDoc> {
  const where = { ...inScope(scope), ...liveUnless(includeDeleted) };
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

/** The conversations in `scope` with id after the cursor. */
export function conversationIdPage(
  scope: Scope,
  includeDeleted: boolean,
  page: PageRequest<string>,
): Filter<ConversationDoc> {
  const filter: Filter<ConversationDoc> = { ...inScope(scope), ...liveUnless(includeDeleted) };
  if (page.after !== null) filter.idKey = { $gt: idKey(page.after) };
  return filter;
}

/**
 * A conversation's messages in `scope` (live ones unless `includeDeleted`) after the cursor key:
 * a message carries its conversation's owners, so an out-of-scope conversation has none.
 */
export function messagePage(
  conversationId: string,
  scope: Scope,
  includeDeleted: boolean,
  page: PageRequest<MessageKey>,
): Filter<MessageDoc> {
  const where = { conversationId, ...inScope(scope), ...liveUnless(includeDeleted) };
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
 * The `queryTurnTraces` filter in `scope` (same semantics as core's `matchesTraceFilter`) plus the
 * cursor. Array fields match when any element does (`toolTraces.toolName`, `llmCalls.model`).
 */
export function tracePage(
  scope: Scope,
  f: TraceFilter,
  page: PageRequest<TraceKey>,
): Filter<TurnTraceDoc> {
  const and: Filter<TurnTraceDoc>[] = [];
  const where: Record<string, unknown> = liveUnless(f.includeDeleted);
  if (f.agentId !== undefined) where.agentId = f.agentId;
  if (f.conversationId !== undefined) where.conversationId = f.conversationId;
  Object.assign(where, inScope(scope));
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

/** What a usage summary is asked besides the owners, which are its scope. */
export type UsageWindow = Omit<UsageQuery, "userId" | "tenantId">;

/** The traces in `scope` a usage summary covers. */
export function usageFilter(scope: Scope, q: UsageWindow): Filter<TurnTraceDoc> {
  const filter: Filter<TurnTraceDoc> = {
    timestamp: { $gte: q.since, $lt: q.until },
    ...liveUnless(q.includeDeleted),
  };
  if (q.agentId !== undefined) filter.agentId = q.agentId;
  return { ...filter, ...inScope(scope) };
}
