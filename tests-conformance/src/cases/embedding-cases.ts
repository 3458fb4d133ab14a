import type { MessageStoreApi, PendingEmbeddingsOptions } from "@message-store/core";
import { collect } from "../dump.js";
import { conversation, message, T0 } from "../fixtures.js";
import { expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const PENDING_TENANT =
  "listPendingEmbeddings keeps to the tenant: a tenantId filter, and a forTenant view, list only that tenant's messages";

const pendingIds = (api: MessageStoreApi, options: PendingEmbeddingsOptions = {}) =>
  collect((o) => api.listPendingEmbeddings({ ...options, ...o }), 1).then((ms) =>
    ms.map((m) => m.id),
  );

/** The embedding queue and tenants: one pending message per (tenant, user) pair. */
export const pendingEmbeddingsTenant: ContractCase = {
  id: "pending-embeddings-tenant",
  rule: PENDING_TENANT,
  title:
    "the pending-embeddings list applies tenantId, and forTenant's tenant, alone and with a user",
  requires: ["embeddingQueue", "tenants"],
  async run({ store }) {
    for (const [tenantId, userId] of [
      ["t1", "u1"],
      ["t2", "u1"],
      ["t2", "u2"],
    ] as const) {
      const c = await store.storeConversation(
        conversation({ id: `pt-${tenantId}-${userId}`, userId, tenantId }),
      );
      await store.storeMessage(message(c, { id: `pt-${tenantId}-${userId}-m`, timestamp: T0 }));
    }
    const cases: [string, MessageStoreApi, PendingEmbeddingsOptions, string[]][] = [
      ["listPendingEmbeddings()", store, {}, ["pt-t1-u1-m", "pt-t2-u1-m", "pt-t2-u2-m"]],
      ['listPendingEmbeddings({ tenantId: "t1" })', store, { tenantId: "t1" }, ["pt-t1-u1-m"]],
      [
        'listPendingEmbeddings({ tenantId: "t2" })',
        store,
        { tenantId: "t2" },
        ["pt-t2-u1-m", "pt-t2-u2-m"],
      ],
      [
        'listPendingEmbeddings({ tenantId: "t2", userId: "u1" })',
        store,
        { tenantId: "t2", userId: "u1" },
        ["pt-t2-u1-m"],
      ],
      ['forTenant("t1").listPendingEmbeddings()', store.forTenant("t1"), {}, ["pt-t1-u1-m"]],
      [
        'forTenant("t2").listPendingEmbeddings({ userId: "u2" })',
        store.forTenant("t2"),
        { userId: "u2" },
        ["pt-t2-u2-m"],
      ],
      [
        'forUser("u1").forTenant("t2").listPendingEmbeddings()',
        store.forUser("u1").forTenant("t2"),
        {},
        ["pt-t2-u1-m"],
      ],
      ['forTenant("t3").listPendingEmbeddings()', store.forTenant("t3"), {}, []],
    ];
    for (const [label, api, options, expected] of cases) {
      expectRule(
        PENDING_TENANT,
        `${label} ids (pages of 1)`,
        await pendingIds(api, options),
        expected,
      );
    }
  },
};

const STALE_EMBEDDING =
  "an upsert that changes originalContent while passing the embedding stored stores embedding: null (stale), on every adapter";

/** The embedding rule of `storeMessage`, which holds without the embedding queue too. */
export const staleEmbeddingCleared: ContractCase = {
  id: "stale-embedding-cleared",
  rule: STALE_EMBEDDING,
  title:
    "an upsert changing the text clears a passed-back embedding, alone and in a batch; the same text or a new vector keeps it",
  async run({ store }) {
    const c = await store.storeConversation(conversation({ id: "se-conv", userId: "se-user" }));
    const [a, b] = await store.storeMessages([
      message(c, { id: "se-a", originalContent: "first", embedding: [1, 0], timestamp: T0 }),
      message(c, { id: "se-b", originalContent: "first", embedding: [0, 1], timestamp: T0 + 1 }),
    ]);
    const embeddings = async () => ({
      "se-a": (await store.getMessage("se-a"))?.embedding,
      "se-b": (await store.getMessage("se-b"))?.embedding,
    });
    const same = await store.storeMessage({ ...a!, metadata: { touched: true } });
    expectRule(STALE_EMBEDDING, "storeMessage(same text).embedding", same.embedding, [1, 0]);
    const changed = await store.storeMessage({ ...a!, originalContent: "second" });
    expectRule(
      STALE_EMBEDDING,
      "storeMessage(new text, stored embedding).embedding",
      changed.embedding,
      null,
    );
    const [batched] = await store.storeMessages([{ ...b!, originalContent: "edited" }]);
    expectRule(
      STALE_EMBEDDING,
      "storeMessages([new text, stored embedding])[0].embedding",
      batched!.embedding,
      null,
    );
    expectRule(
      STALE_EMBEDDING,
      "getMessage(…).embedding after the text changed",
      await embeddings(),
      {
        "se-a": null,
        "se-b": null,
      },
    );
    const fresh = await store.storeMessage({
      ...changed,
      originalContent: "third",
      embedding: [2, 0],
    });
    expectRule(
      STALE_EMBEDDING,
      "storeMessage(new text, new embedding).embedding",
      fresh.embedding,
      [2, 0],
    );
    expectRule(STALE_EMBEDDING, "getMessage(…).embedding after a new vector", await embeddings(), {
      "se-a": [2, 0],
      "se-b": null,
    });
  },
};
