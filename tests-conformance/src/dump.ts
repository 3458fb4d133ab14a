import type {
  Conversation,
  Message,
  MessageStoreApi,
  Page,
  PageOptions,
  TurnTrace,
} from "@message-store/core";
import { expect } from "vitest";

const MAX_PAGES = 100_000;

/**
 * Walks a list to its end with pages of `limit` (omitted: one unpaged read) and returns every
 * item in order. Fails if a page is larger than `limit` or the walk never ends.
 */
export async function collect<T>(
  fetch: (options: PageOptions) => Promise<Page<T>>,
  limit?: number,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const options: PageOptions = {};
    if (limit !== undefined) options.limit = limit;
    if (cursor !== null) options.cursor = cursor;
    const page = await fetch(options);
    if (limit !== undefined) {
      expect(page.items.length, "a page holds at most `limit` items").toBeLessThanOrEqual(limit);
      if (page.nextCursor !== null) expect(page.items.length).toBe(limit);
    }
    items.push(...page.items);
    if (page.nextCursor === null) return items;
    expect(typeof page.nextCursor, "nextCursor is a string or null").toBe("string");
    cursor = page.nextCursor;
  }
  return expect.fail(`the list did not end after ${MAX_PAGES} pages`);
}

/** Every conversation of a user, via `getConversationsByUserId`. */
export function allConversations(store: MessageStoreApi, userId: string, limit?: number) {
  return collect<Conversation>((o) => store.getConversationsByUserId(userId, o), limit);
}

/** The whole transcript, via `getMessagesByConversationId`. */
export function allMessages(store: MessageStoreApi, conversationId: string, limit?: number) {
  return collect<Message>((o) => store.getMessagesByConversationId(conversationId, o), limit);
}

/** Every trace of an agent, via `getTurnTracesByAgentId`. */
export function allAgentTraces(store: MessageStoreApi, agentId: string, limit?: number) {
  return collect<TurnTrace>((o) => store.getTurnTracesByAgentId(agentId, o), limit);
}

/** Every conversation in the store (or one user's), by id, via `listConversations`. */
export function listAll(store: MessageStoreApi, userId?: string, limit?: number) {
  return collect<Conversation>(
    (o) => store.listConversations(userId === undefined ? o : { ...o, userId }),
    limit,
  );
}

/** Every trace in the store, via `queryTurnTraces({})`. */
export function allTraces(store: MessageStoreApi, limit?: number) {
  return collect<TurnTrace>((o) => store.queryTurnTraces(o), limit);
}

/** What a dump looks at besides the global lists: users, and ids that must (still) not exist. */
export interface DumpScope {
  userIds: readonly string[];
  conversationIds?: readonly string[];
  messageIds?: readonly string[];
}

/** A snapshot of everything reachable from `scope` through the public read methods. */
export interface StoreDump {
  /** Every conversation, via `listConversations()`. */
  allConversations: Conversation[];
  conversationsByUser: Record<string, Conversation[]>;
  conversations: Record<string, Conversation | null>;
  transcripts: Record<string, Message[]>;
  contexts: Record<string, Message[]>;
  messages: Record<string, Message | null>;
  tracesByMessage: Record<string, TurnTrace | null>;
  traces: TurnTrace[];
}

/**
 * Reads the whole store through the public lists (`listConversations`, `queryTurnTraces`), plus
 * everything reachable from `scope` (per-user lists, records by id, context windows).
 * Compare two dumps with `toEqual` to prove that a call changed nothing.
 */
export async function dumpStore(store: MessageStoreApi, scope: DumpScope): Promise<StoreDump> {
  const dump: StoreDump = {
    allConversations: await listAll(store),
    conversationsByUser: {},
    conversations: {},
    transcripts: {},
    contexts: {},
    messages: {},
    tracesByMessage: {},
    traces: await allTraces(store),
  };
  const conversationIds = new Set(scope.conversationIds ?? []);
  for (const c of dump.allConversations) conversationIds.add(c.id);
  for (const userId of scope.userIds) {
    const list = await allConversations(store, userId);
    dump.conversationsByUser[userId] = list;
    for (const c of list) conversationIds.add(c.id);
  }
  const messageIds = new Set(scope.messageIds ?? []);
  for (const t of dump.traces) messageIds.add(t.messageId);
  for (const id of [...conversationIds].sort()) {
    dump.conversations[id] = await store.getConversation(id);
    const transcript = await allMessages(store, id);
    dump.transcripts[id] = transcript;
    dump.contexts[id] = await store.getImmediateContext(id, 1_000_000);
    for (const m of transcript) messageIds.add(m.id);
  }
  for (const id of [...messageIds].sort()) {
    dump.messages[id] = await store.getMessage(id);
    dump.tracesByMessage[id] = await store.getTurnTraceByMessageId(id);
  }
  return dump;
}

/** `dump` as it should read after deleting the conversations `ids` with their messages and traces. */
export function withoutConversations(dump: StoreDump, ids: readonly string[]): StoreDump {
  const gone = new Set(ids);
  const goneMessages = new Set(
    Object.entries(dump.transcripts)
      .filter(([id]) => gone.has(id))
      .flatMap(([, ms]) => ms.map((m) => m.id)),
  );
  const keep = <T>(o: Record<string, T>, drop: Set<string>) =>
    Object.fromEntries(Object.entries(o).filter(([id]) => !drop.has(id)));
  return {
    allConversations: dump.allConversations.filter((c) => !gone.has(c.id)),
    conversationsByUser: Object.fromEntries(
      Object.entries(dump.conversationsByUser).map(([u, cs]) => [
        u,
        cs.filter((c) => !gone.has(c.id)),
      ]),
    ),
    conversations: keep(dump.conversations, gone),
    transcripts: keep(dump.transcripts, gone),
    contexts: keep(dump.contexts, gone),
    messages: keep(dump.messages, goneMessages),
    tracesByMessage: keep(dump.tracesByMessage, goneMessages),
    traces: dump.traces.filter((t) => !gone.has(t.conversationId)),
  };
}
