import { setImmediate as nextTurn } from "node:timers/promises";
import type { MessageStore, MessageStoreApi, SessionOptions } from "@message-store/core";
import type { SequencedMessage } from "@message-store/core/adapter";
import { planted, withoutKey } from "./planted.js";

/** The planted violations of issue #25, each of which passed the whole suite before it grew. */
export const ISSUE_25 = {
  /** 1. A transcript page read as keys first, then each record by id, other work in between. */
  pageFromTwoReads: () =>
    planted(({ original }) => ({
      getMessagesByConversationId: async (request) => {
        const keys = await original.getMessagesByConversationId(request);
        const rows: SequencedMessage[] = [];
        for (const [i, { message, sequence }] of keys.entries()) {
          if (i % 5 === 0) await nextTurn();
          const now = await original.getMessage({ ...request, id: message.id });
          if (now) rows.push({ message: now, sequence });
        }
        return rows;
      },
    })),

  /** 2. `purgeDeleted({ before })` treating `before` as inclusive. */
  purgeInclusive: () =>
    planted(({ original }) => ({
      purgeDeleted: (request) => original.purgeDeleted!({ ...request, before: request.before + 1 }),
    })),

  /** 3. A trace batch stored one by one, by a driver that declares it all or nothing. */
  traceBatchOneByOne: () =>
    planted(({ original }) => ({
      storeTurnTraces: async (request) => {
        const stored = [];
        for (const t of request.traces) {
          stored.push(...(await original.storeTurnTraces({ ...request, traces: [t] })));
        }
        return stored;
      },
    })),

  /** 4. The pending-embeddings list ignoring the tenant. */
  pendingIgnoresTenant: () =>
    planted(({ original }) => ({
      listPendingEmbeddings: (request) =>
        original.listPendingEmbeddings!({
          ...request,
          scope: withoutKey(request.scope, "tenantId"),
        }),
    })),

  /** 5. Activity raised by new messages only: an upsert moving a message forward leaves it. */
  activityFromNewMessagesOnly: () =>
    planted(({ original, state }) => ({
      storeMessages: async (request) => {
        const existed = new Set(request.messages.filter((m) => state.messages.has(m.id)));
        const before = new Map<string, number | null>();
        for (const m of request.messages) {
          const c = state.conversations.get(m.conversationId);
          if (c && !before.has(c.id)) before.set(c.id, c.lastMessageAt);
        }
        const stored = await original.storeMessages(request);
        for (const [id, previous] of before) {
          const fresh = request.messages.filter((m) => m.conversationId === id && !existed.has(m));
          const newest = Math.max(previous ?? -1, ...fresh.map((m) => m.timestamp));
          state.conversations.get(id)!.lastMessageAt = newest < 0 ? null : newest;
        }
        return stored;
      },
    })),

  /** 6. A conversation's soft-delete stamp not bumped past the stamps already in it. */
  stampNotBumped: () =>
    planted(({ original, state }) => ({
      softDeleteConversation: async (request) => {
        const done = await original.softDeleteConversation!(request);
        const c = state.conversations.get(request.id);
        if (!done || !c || c.deletedAt === request.deletedAt) return done;
        const bumped = c.deletedAt;
        c.deletedAt = request.deletedAt;
        for (const entry of state.messagesByConversation.get(request.id) ?? []) {
          if (entry.message.deletedAt === bumped) {
            entry.message = { ...entry.message, deletedAt: request.deletedAt };
          }
          const t = state.traceOf(entry.message.id);
          if (t?.deletedAt === bumped) t.deletedAt = request.deletedAt;
        }
        return done;
      },
    })),

  /** 7. The session's timestamps chosen from a read before the write (check-then-act). */
  sessionReadThenWrite: () =>
    planted(({ original }) => ({
      storeSessionMessages: async ({ scope, conversation, messages, now }) => {
        const read = { scope, id: conversation.id, includeDeleted: true };
        const existing = await original.getConversation(read);
        await nextTurn();
        const start = existing ? Math.max(now, existing.lastActivityAt + 1) : now;
        if (!existing) await original.storeConversation({ scope, conversation });
        const timed = messages.map((m, i) => ({ ...m, timestamp: start + i }));
        return original.storeMessages({ scope, messages: timed });
      },
    })),

  /** 8. A view that checks a copy of the session options, then passes the caller's own on. */
  viewReadsTwice: async () => {
    const store = await planted(() => ({}));
    return new Proxy(store, {
      get(target, key) {
        if (key === "forUser") return (userId: string) => twiceReadingView(target, userId);
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  },

  /** 9. Ownership enforced only by adapters with `tenants`: another owner's message is taken. */
  ownersOnlyWithTenants: () =>
    planted(
      ({ original, state }) => ({
        storeMessages: (request) =>
          original.storeMessages({
            ...request,
            messages: request.messages.map((m) => {
              const owner = state.conversations.get(m.conversationId)?.userId;
              return owner === undefined ? m : { ...m, userId: owner };
            }),
          }),
      }),
      { tenants: false },
    ),
} as const;

/** The old view's flaw: `options.userId` read once for the check and again by the store. */
function twiceReadingView(store: MessageStore, userId: string): MessageStoreApi {
  const view = store.forUser(userId);
  return new Proxy(view, {
    get(target, key) {
      if (key !== "storeSessionMessages") {
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (id: string, turns: never[], options: SessionOptions) => {
        if (options.userId !== userId) throw new Error("not this view's user");
        return store.storeSessionMessages(id, turns, options);
      };
    },
  });
}
