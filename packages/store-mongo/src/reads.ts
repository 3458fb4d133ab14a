import type {
  Conversation,
  ConversationFilter,
  Message,
  TurnTrace,
  TurnTraceFilter,
  UsageBucket,
  UsageQuery,
} from "@message-store/core";
import {
  type ConversationKey,
  type MessageKey,
  type PageRequest,
  type SequencedMessage,
  summarizeTraces,
  type TraceKey,
} from "@message-store/core/adapter";
import type { MongoContext } from "./collections.js";
import { toConversation, toMessage, toSequencedMessage, toTurnTrace } from "./documents.js";
import {
  CONVERSATION_ID_ORDER,
  CONVERSATION_ORDER,
  conversationIdPage,
  conversationPage,
  liveUnless,
  MESSAGE_ORDER,
  messagePage,
  pageOptions,
  TRACE_ORDER,
  tracePage,
  UNLIMITED,
  usageFilter,
} from "./queries.js";

/*
 * The reads: one `find` each (see "Round trips per call" in the README), decoded and validated.
 * Soft-deleted records are left out unless asked for (`liveUnless`).
 */

export async function readConversation(
  ctx: MongoContext,
  id: string,
  includeDeleted: boolean,
): Promise<Conversation | null> {
  const doc = await ctx.conversations.findOne({ _id: id, ...liveUnless(includeDeleted) });
  return doc ? toConversation(doc) : null;
}

/** A user's conversations in `(lastActivityAt desc, id asc)` order. */
export async function readConversationsByUser(
  ctx: MongoContext,
  userId: string,
  page: PageRequest<ConversationKey>,
  filter: ConversationFilter,
): Promise<Conversation[]> {
  const docs = await ctx.conversations
    .find(conversationPage(userId, page, filter), pageOptions(CONVERSATION_ORDER, page.take))
    .toArray();
  return docs.map(toConversation);
}

/** Conversations (of `userId` when not null) by id in code-point order. */
export async function readConversationList(
  ctx: MongoContext,
  userId: string | null,
  page: PageRequest<string>,
  filter: ConversationFilter,
): Promise<Conversation[]> {
  const docs = await ctx.conversations
    .find(conversationIdPage(userId, page, filter), pageOptions(CONVERSATION_ID_ORDER, page.take))
    .toArray();
  return docs.map(toConversation);
}

export async function readMessage(
  ctx: MongoContext,
  id: string,
  includeDeleted: boolean,
): Promise<Message | null> {
  const doc = await ctx.messages.findOne({ _id: id, ...liveUnless(includeDeleted) });
  return doc ? toMessage(doc) : null;
}

/** A transcript page in `(timestamp, sequence)` order. */
export async function readTranscript(
  ctx: MongoContext,
  conversationId: string,
  page: PageRequest<MessageKey>,
  includeDeleted: boolean,
): Promise<SequencedMessage[]> {
  const docs = await ctx.messages
    .find(messagePage(conversationId, page, includeDeleted), pageOptions(MESSAGE_ORDER, page.take))
    .toArray();
  return docs.map(toSequencedMessage);
}

/** The newest `n` live, non-flagged messages, oldest first: a backward scan of the transcript index. */
export async function readContext(
  ctx: MongoContext,
  conversationId: string,
  n: number,
): Promise<Message[]> {
  const docs = await ctx.messages
    .find(
      { conversationId, isFlagged: false, deletedAt: null },
      { sort: { timestamp: -1, sequence: -1 }, limit: n, batchSize: n },
    )
    .toArray();
  return docs.reverse().map(toMessage);
}

export async function readTraceOfMessage(
  ctx: MongoContext,
  messageId: string,
  includeDeleted: boolean,
): Promise<TurnTrace | null> {
  const doc = await ctx.traces.findOne({ messageId, ...liveUnless(includeDeleted) });
  return doc ? toTurnTrace(doc) : null;
}

/** Traces matching `filter` in `(timestamp desc, id desc)` order. */
export async function readTraces(
  ctx: MongoContext,
  filter: TurnTraceFilter,
  page: PageRequest<TraceKey>,
): Promise<TurnTrace[]> {
  const docs = await ctx.traces
    .find(tracePage(filter, page), pageOptions(TRACE_ORDER, page.take))
    .toArray();
  return docs.map(toTurnTrace);
}

/**
 * Fetches the traces in the window (one query on the time, agent, user or tenant index) and sums
 * them with core's `summarizeTraces`, so results equal every other adapter's exactly. Not a
 * server-side `$group`: see the README.
 */
export async function readUsage(ctx: MongoContext, query: UsageQuery): Promise<UsageBucket[]> {
  const docs = await ctx.traces
    .find(usageFilter(query), { sort: { timestamp: 1, idKey: 1 }, batchSize: UNLIMITED })
    .toArray();
  return summarizeTraces(docs.map(toTurnTrace), query);
}
