import type { Conversation, Message, Scope, TurnTrace, UsageBucket } from "@message-store/core";
import {
  type ConversationKey,
  type MessageKey,
  type PageRequest,
  type SequencedMessage,
  summarizeTraces,
  type TraceFilter,
  type TraceKey,
} from "@message-store/core/adapter";
import type { MongoContext } from "./collections.js";
import { toConversation, toMessage, toSequencedMessage, toTurnTrace } from "./documents.js";
import {
  CONVERSATION_ID_ORDER,
  CONVERSATION_ORDER,
  conversationIdPage,
  conversationPage,
  inScope,
  liveUnless,
  MESSAGE_ORDER,
  messagePage,
  pageOptions,
  TRACE_ORDER,
  tracePage,
  UNLIMITED,
  type UsageWindow,
  usageFilter,
} from "./queries.js";

/*
 * The reads: one `find` each (see "Round trips per call" in the README), decoded and validated.
 * The scope is part of every filter (`inScope`), so a record outside it is simply not found.
 * Soft-deleted records are left out unless asked for (`liveUnless`).
 */

export async function readConversation(
  ctx: MongoContext,
  id: string,
  scope: Scope,
  includeDeleted: boolean,
): Promise<Conversation | null> {
  const doc = await ctx.conversations.findOne({
    _id: id,
    ...inScope(scope),
    ...liveUnless(includeDeleted),
  });
  return doc ? toConversation(doc) : null;
}

/** A user's conversations in `(lastActivityAt desc, id asc)` order. */
export async function readConversationsByUser(
  ctx: MongoContext,
  scope: Scope & { userId: string },
  includeDeleted: boolean,
  page: PageRequest<ConversationKey>,
): Promise<Conversation[]> {
  const docs = await ctx.conversations
    .find(conversationPage(scope, includeDeleted, page), pageOptions(CONVERSATION_ORDER, page.take))
    .toArray();
  return docs.map(toConversation);
}

/** The conversations in `scope` by id in code-point order. */
export async function readConversationList(
  ctx: MongoContext,
  scope: Scope,
  includeDeleted: boolean,
  page: PageRequest<string>,
): Promise<Conversation[]> {
  const docs = await ctx.conversations
    .find(
      conversationIdPage(scope, includeDeleted, page),
      pageOptions(CONVERSATION_ID_ORDER, page.take),
    )
    .toArray();
  return docs.map(toConversation);
}

export async function readMessage(
  ctx: MongoContext,
  id: string,
  scope: Scope,
  includeDeleted: boolean,
): Promise<Message | null> {
  const doc = await ctx.messages.findOne({
    _id: id,
    ...inScope(scope),
    ...liveUnless(includeDeleted),
  });
  return doc ? toMessage(doc) : null;
}

/** A transcript page in `(timestamp, sequence)` order. */
export async function readTranscript(
  ctx: MongoContext,
  conversationId: string,
  scope: Scope,
  includeDeleted: boolean,
  page: PageRequest<MessageKey>,
): Promise<SequencedMessage[]> {
  const docs = await ctx.messages
    .find(
      messagePage(conversationId, scope, includeDeleted, page),
      pageOptions(MESSAGE_ORDER, page.take),
    )
    .toArray();
  return docs.map(toSequencedMessage);
}

/** The newest `n` live, non-flagged messages, oldest first: a backward scan of the transcript index. */
export async function readContext(
  ctx: MongoContext,
  conversationId: string,
  scope: Scope,
  n: number,
): Promise<Message[]> {
  const docs = await ctx.messages
    .find(
      { conversationId, ...inScope(scope), isFlagged: false, deletedAt: null },
      { sort: { timestamp: -1, sequence: -1 }, limit: n, batchSize: n },
    )
    .toArray();
  return docs.reverse().map(toMessage);
}

export async function readTraceOfMessage(
  ctx: MongoContext,
  messageId: string,
  scope: Scope,
  includeDeleted: boolean,
): Promise<TurnTrace | null> {
  const doc = await ctx.traces.findOne({
    messageId,
    ...inScope(scope),
    ...liveUnless(includeDeleted),
  });
  return doc ? toTurnTrace(doc) : null;
}

/** Traces in `scope` matching `filter` in `(timestamp desc, id desc)` order. */
export async function readTraces(
  ctx: MongoContext,
  scope: Scope,
  filter: TraceFilter,
  page: PageRequest<TraceKey>,
): Promise<TurnTrace[]> {
  const docs = await ctx.traces
    .find(tracePage(scope, filter, page), pageOptions(TRACE_ORDER, page.take))
    .toArray();
  return docs.map(toTurnTrace);
}

/**
 * Fetches the traces in the window (one query on the time, agent, user or tenant index) and sums
 * them with core's `summarizeTraces`, so results equal every other adapter's exactly. Not a
 * server-side `$group`: see the README.
 */
export async function readUsage(
  ctx: MongoContext,
  scope: Scope,
  query: UsageWindow,
): Promise<UsageBucket[]> {
  const docs = await ctx.traces
    .find(usageFilter(scope, query), { sort: { timestamp: 1, idKey: 1 }, batchSize: UNLIMITED })
    .toArray();
  return summarizeTraces(docs.map(toTurnTrace), query);
}
