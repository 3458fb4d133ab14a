import { setImmediate as nextTurn } from "node:timers/promises";
import type { SearchHit } from "@message-store/core";
import { compareIds, cosineSimilarity, type SequencedMessage } from "@message-store/core/adapter";
import { planted, withoutKey } from "./planted.js";

/** The planted bugs, by the violation of issue #13 they reproduce. */
export const ISSUE_13 = {
  /** 1. The context window skips only messages flagged through flagMessage. */
  flagByUpsertIgnored: () =>
    planted(({ self, original }) => {
      const flaggedByCall = new Set<string>();
      return {
        flagMessage: async (request) => {
          if (request.flagged) flaggedByCall.add(request.id);
          else flaggedByCall.delete(request.id);
          return original.flagMessage(request);
        },
        getImmediateContext: async ({ conversationId, n }) => {
          const all = (await self().getMessagesByConversationId(conversationId)).items.filter(
            (m) => !flaggedByCall.has(m.id),
          );
          return n === 0 ? [] : all.slice(-n);
        },
      };
    }),

  /** 2. A search index that an upsert with `embedding: null` does not clear. */
  staleEmbeddingIndex: () =>
    planted(({ self, original }) => {
      const index = new Map<string, number[]>();
      return {
        storeMessages: async (request) => {
          for (const m of request.messages) if (m.embedding) index.set(m.id, m.embedding);
          return original.storeMessages(request);
        },
        searchMessages: async (request) => {
          const { query: q, scope } = request;
          const hits: SearchHit[] = await original.searchMessages!(request);
          const found = new Set(hits.map((h) => h.message.id));
          for (const [id, embedding] of index) {
            const m = await self().getMessage(id);
            if (found.has(id) || !m || m.isFlagged || embedding.length !== q.embedding.length)
              continue;
            if (scope.userId !== undefined && m.userId !== scope.userId) continue;
            if (q.conversationId !== undefined && m.conversationId !== q.conversationId) continue;
            hits.push({ message: m, score: cosineSimilarity(q.embedding, embedding) ?? 0 });
          }
          return hits.sort((a, b) => b.score - a.score).slice(0, q.limit);
        },
      };
    }),

  /** 3. A search index that keeps the first userId a message id was stored with. */
  staleUserIndex: () =>
    planted(({ original }) => {
      const owner = new Map<string, string>();
      return {
        storeMessages: async (request) => {
          for (const m of request.messages) if (!owner.has(m.id)) owner.set(m.id, m.userId);
          return original.storeMessages(request);
        },
        searchMessages: async (request) => {
          const user = request.scope.userId;
          if (user === undefined) return original.searchMessages!(request);
          const hits: SearchHit[] = await original.searchMessages!({
            scope: withoutKey(request.scope, "userId"),
            query: { ...request.query, limit: 1000 },
          });
          return hits
            .filter((h) => (owner.get(h.message.id) ?? h.message.userId) === user)
            .slice(0, request.query.limit);
        },
      };
    }),

  /** 4. summarizeUsage drops userId when agentId is given. */
  usageIgnoresUser: () =>
    planted(({ original }) => ({
      summarizeUsage: (request) =>
        original.summarizeUsage(
          request.query.agentId === undefined
            ? request
            : { ...request, scope: withoutKey(request.scope, "userId") },
        ),
    })),

  /** 4, the mirror: summarizeUsage drops agentId when userId is given. */
  usageIgnoresAgent: () =>
    planted(({ original }) => ({
      summarizeUsage: (request) =>
        original.summarizeUsage(
          request.scope.userId === undefined
            ? request
            : { ...request, query: withoutKey(request.query, "agentId") },
        ),
    })),

  /** 5. A transcript page assembled from keyset reads of 3 rows, other work running between. */
  chunkedListReads: () =>
    planted(({ original }) => ({
      getMessagesByConversationId: async (request) => {
        const { page } = request;
        const rows: SequencedMessage[] = [];
        let after = page.after;
        for (;;) {
          const chunk = await original.getMessagesByConversationId({
            ...request,
            page: { after, take: 3 },
          });
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
    planted(({ self, original }) => ({
      deleteConversation: async (request) => {
        const { items } = await self().getMessagesByConversationId(request.id);
        for (const m of items) {
          await original.deleteMessage({ id: m.id, scope: request.scope });
          await nextTurn();
        }
        return original.deleteConversation(request);
      },
    })),

  /** 6, the batch: storeMessages as one write per message. */
  batchInSteps: () =>
    planted(({ original }) => ({
      storeMessages: async (request) => {
        const out = [];
        for (const m of request.messages) {
          out.push(...(await original.storeMessages({ ...request, messages: [m] })));
          await nextTurn();
        }
        return out;
      },
    })),

  /** Model-based: same-timestamp messages ordered by id instead of receipt. */
  tiesById: () =>
    planted(({ original }) => ({
      getMessagesByConversationId: async (request) =>
        (await original.getMessagesByConversationId(request)).sort(
          (a, b) =>
            a.message.timestamp - b.message.timestamp || compareIds(a.message.id, b.message.id),
        ),
    })),
} as const;
