/* biome-ignore-all lint/suspicious/noExplicitAny: the hooks are protected; a planted bug reaches them. */
import { setImmediate as nextTurn } from "node:timers/promises";
import { type Message, MessageStore, type SearchHit, type UsageBucket } from "@message-store/core";
import {
  compareIds,
  cosineSimilarity,
  type MessageKey,
  type PageRequest,
  type ReadRequest,
  type SequencedMessage,
} from "@message-store/core/adapter";
import "../../src/index.js";

type Hook = (...args: any[]) => Promise<any>;
type Hooks = Record<string, Hook>;

/**
 * Opens a JSON `:memory:` store with some of its protected hooks replaced: a planted bug, as a
 * third-party adapter could have it. `original` calls the adapter's own hook.
 */
async function planted(
  patch: (store: MessageStore, original: Hooks) => Hooks,
): Promise<MessageStore> {
  const store = await MessageStore.initialize({ storage: "json", path: ":memory:" });
  const proto = Object.getPrototypeOf(store) as Hooks;
  const original = new Proxy({} as Hooks, {
    get: (_, name: string) => (proto[name] as Hook).bind(store),
  });
  Object.assign(store, patch(store, original));
  return store;
}

const withoutKey = <T extends object, K extends keyof T>(o: T, key: K): Omit<T, K> => {
  const { [key]: _dropped, ...rest } = o;
  return rest;
};

/** The planted bugs, by the violation of issue #13 they reproduce. */
export const PLANTED = {
  /** 1. The context window skips only messages flagged through flagMessage. */
  flagByUpsertIgnored: () =>
    planted((store, original) => {
      const flaggedByCall = new Set<string>();
      return {
        _flagMessage: async (id: string, flagged: boolean) => {
          if (flagged) flaggedByCall.add(id);
          else flaggedByCall.delete(id);
          return original._flagMessage!(id, flagged);
        },
        _getImmediateContext: async (conversationId: string, n: number) => {
          const all = (await store.getMessagesByConversationId(conversationId)).items.filter(
            (m) => !flaggedByCall.has(m.id),
          );
          return n === 0 ? [] : all.slice(-n);
        },
      };
    }),

  /** 2. A search index that an upsert with `embedding: null` does not clear. */
  staleEmbeddingIndex: () =>
    planted((store, original) => {
      const index = new Map<string, number[]>();
      return {
        _storeMessages: async (messages: Message[], options: unknown) => {
          for (const m of messages) if (m.embedding) index.set(m.id, m.embedding);
          return original._storeMessages!(messages, options);
        },
        _searchMessages: async (q: {
          embedding: number[];
          limit: number;
          userId?: string;
          conversationId?: string;
        }) => {
          const hits: SearchHit[] = await original._searchMessages!(q);
          const found = new Set(hits.map((h) => h.message.id));
          for (const [id, embedding] of index) {
            const m = await store.getMessage(id);
            if (found.has(id) || !m || m.isFlagged || embedding.length !== q.embedding.length)
              continue;
            if (q.userId !== undefined && m.userId !== q.userId) continue;
            if (q.conversationId !== undefined && m.conversationId !== q.conversationId) continue;
            hits.push({ message: m, score: cosineSimilarity(q.embedding, embedding) ?? 0 });
          }
          return hits.sort((a, b) => b.score - a.score).slice(0, q.limit);
        },
      };
    }),

  /** 3. A search index that keeps the first userId a message id was stored with. */
  staleUserIndex: () =>
    planted((_store, original) => {
      const owner = new Map<string, string>();
      return {
        _storeMessages: async (messages: Message[], options: unknown) => {
          for (const m of messages) if (!owner.has(m.id)) owner.set(m.id, m.userId);
          return original._storeMessages!(messages, options);
        },
        _searchMessages: async (q: { userId?: string; limit: number }) => {
          if (q.userId === undefined) return original._searchMessages!(q);
          const hits: SearchHit[] = await original._searchMessages!({
            ...withoutKey(q, "userId"),
            limit: 1000,
          });
          return hits
            .filter((h) => (owner.get(h.message.id) ?? h.message.userId) === q.userId)
            .slice(0, q.limit);
        },
      };
    }),

  /** 4. summarizeUsage drops userId when agentId is given. */
  usageIgnoresUser: () =>
    planted((_store, original) => ({
      _summarizeUsage: (q: { agentId?: string; userId?: string }): Promise<UsageBucket[]> =>
        original._summarizeUsage!(q.agentId === undefined ? q : withoutKey(q, "userId")),
    })),

  /** 4, the mirror: summarizeUsage drops agentId when userId is given. */
  usageIgnoresAgent: () =>
    planted((_store, original) => ({
      _summarizeUsage: (q: { agentId?: string; userId?: string }): Promise<UsageBucket[]> =>
        original._summarizeUsage!(q.userId === undefined ? q : withoutKey(q, "agentId")),
    })),

  /** 5. A transcript page assembled from keyset reads of 3 rows, other work running between. */
  chunkedListReads: () =>
    planted((_store, original) => ({
      _getMessagesByConversationId: async (
        conversationId: string,
        page: PageRequest<MessageKey>,
        options: ReadRequest,
      ) => {
        const rows: SequencedMessage[] = [];
        let after = page.after;
        for (;;) {
          const chunk: SequencedMessage[] = await original._getMessagesByConversationId!(
            conversationId,
            { after, take: 3 },
            options,
          );
          rows.push(...chunk);
          if (chunk.length < 3 || (page.take !== null && rows.length >= page.take)) break;
          const last = chunk[chunk.length - 1]!;
          after = { timestamp: last.message.timestamp, sequence: last.sequence };
          await nextTurn();
        }
        return page.take === null ? rows : rows.slice(0, page.take);
      },
    })),

  /** 6. deleteConversation as several commands: each message, then the conversation. */
  cascadeInSteps: () =>
    planted((store, original) => ({
      _deleteConversation: async (id: string) => {
        const { items } = await store.getMessagesByConversationId(id);
        for (const m of items) {
          await original._deleteMessage!(m.id);
          await nextTurn();
        }
        return original._deleteConversation!(id);
      },
    })),

  /** 6, the batch: storeMessages as one write per message. */
  batchInSteps: () =>
    planted((_store, original) => ({
      _storeMessages: async (messages: Message[], options: unknown) => {
        const out: Message[] = [];
        for (const m of messages) {
          out.push(...(await original._storeMessages!([m], options)));
          await nextTurn();
        }
        return out;
      },
    })),

  /** Model-based: same-timestamp messages ordered by id instead of receipt. */
  tiesById: () =>
    planted((_store, original) => ({
      _getMessagesByConversationId: async (...args: unknown[]) =>
        ((await original._getMessagesByConversationId!(...args)) as SequencedMessage[]).sort(
          (a, b) =>
            a.message.timestamp - b.message.timestamp || compareIds(a.message.id, b.message.id),
        ),
    })),
} as const;
