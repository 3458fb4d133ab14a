import type {
  Conversation,
  Message,
  MessageStore,
  TurnTrace,
  TurnTraceQueryInput,
} from "@message-store/core";

/** Pages of every conversation (or one user's), by id ascending (`listConversations`). */
export async function* conversationPages(
  store: MessageStore,
  pageSize: number,
  userId?: string,
): AsyncGenerator<Conversation[]> {
  let cursor: string | null = null;
  do {
    const page = await store.listConversations({
      limit: pageSize,
      cursor,
      ...(userId === undefined ? {} : { userId }),
    });
    if (page.items.length > 0) yield page.items;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

/** Pages of a conversation's transcript, in transcript order. */
export async function* messagePages(
  store: MessageStore,
  conversationId: string,
  pageSize: number,
): AsyncGenerator<Message[]> {
  let cursor: string | null = null;
  do {
    const page = await store.getMessagesByConversationId(conversationId, {
      limit: pageSize,
      cursor,
    });
    if (page.items.length > 0) yield page.items;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

/** Pages of traces matching `query`, newest first (the store's order). */
export async function* tracePages(
  store: MessageStore,
  query: Omit<TurnTraceQueryInput, "limit" | "cursor">,
  pageSize: number,
): AsyncGenerator<TurnTrace[]> {
  let cursor: string | null = null;
  do {
    const page = await store.queryTurnTraces({ ...query, limit: pageSize, cursor });
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
