import type {
  Conversation,
  Message,
  MessageStore,
  StoredCheckpoint,
  TurnTrace,
  TurnTraceQueryInput,
} from "@message-store/core";

/**
 * Soft-deleted records too: what exports, imports and migrations copy (a store without soft
 * delete has none, and ignores the option).
 */
export const WITH_DELETED = { includeDeleted: true } as const;
/** Live records only: what `stats` counts. */
export const LIVE_ONLY = { includeDeleted: false } as const;

/** Pages of every conversation (or one user's), by id ascending (`listConversations`). */
export async function* conversationPages(
  store: MessageStore,
  pageSize: number,
  userId?: string,
  read: { includeDeleted: boolean } = WITH_DELETED,
): AsyncGenerator<Conversation[]> {
  let cursor: string | null = null;
  do {
    const page = await store.listConversations({
      limit: pageSize,
      cursor,
      ...read,
      ...(userId === undefined ? {} : { userId }),
    });
    if (page.items.length > 0) yield page.items;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

/** Pages of a conversation's transcript, in transcript order (soft-deleted messages included). */
export async function* messagePages(
  store: MessageStore,
  conversationId: string,
  pageSize: number,
  read: { includeDeleted: boolean } = WITH_DELETED,
): AsyncGenerator<Message[]> {
  let cursor: string | null = null;
  do {
    const page = await store.getMessagesByConversationId(conversationId, {
      limit: pageSize,
      cursor,
      ...read,
    });
    if (page.items.length > 0) yield page.items;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

/** Pages of traces matching `query` (soft-deleted ones included unless it says), newest first. */
export async function* tracePages(
  store: MessageStore,
  query: Omit<TurnTraceQueryInput, "limit" | "cursor">,
  pageSize: number,
): AsyncGenerator<TurnTrace[]> {
  let cursor: string | null = null;
  do {
    const page = await store.queryTurnTraces({
      ...WITH_DELETED,
      ...query,
      limit: pageSize,
      cursor,
    });
    if (page.items.length > 0) yield page.items;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

/** A checkpoint carries a whole graph state: at most this many per page. */
const CHECKPOINT_PAGE = 100;

/**
 * Pages of a thread's checkpoints, every namespace, newest first (`listCheckpoints` order), each
 * with its channel values and pending writes; none when the store keeps no checkpoints. A
 * soft-deleted conversation's checkpoints are hidden by the store, so they are not listed.
 */
export async function* checkpointPages(
  store: MessageStore,
  conversationId: string,
  pageSize: number,
): AsyncGenerator<StoredCheckpoint[]> {
  if (!store.capabilities.checkpoints) return;
  let cursor: string | null = null;
  do {
    const page = await store.listCheckpoints({
      conversationId,
      limit: Math.min(pageSize, CHECKPOINT_PAGE),
      cursor,
    });
    if (page.items.length > 0) yield page.items;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

/** Every trace of a conversation, oldest first: `timestamp` ascending, then `id` ascending. */
export async function conversationTraces(
  store: MessageStore,
  conversationId: string,
  pageSize: number,
): Promise<TurnTrace[]> {
  const traces: TurnTrace[] = [];
  for await (const page of tracePages(store, { conversationId }, pageSize)) traces.push(...page);
  // The store lists (timestamp desc, id desc); its exact reverse is (timestamp asc, id asc).
  return traces.reverse();
}

/** Counts a conversation's messages by paging through them. */
export async function countMessages(
  store: MessageStore,
  conversationId: string,
  pageSize: number,
): Promise<number> {
  let count = 0;
  for await (const page of messagePages(store, conversationId, pageSize)) count += page.length;
  return count;
}

/** Counts a conversation's traces by paging through them. */
export async function countTraces(
  store: MessageStore,
  conversationId: string,
  pageSize: number,
): Promise<number> {
  let count = 0;
  for await (const page of tracePages(store, { conversationId }, pageSize)) count += page.length;
  return count;
}
