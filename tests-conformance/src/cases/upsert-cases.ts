import type { MessageStoreApi } from "@message-store/core";
import { isMessageStoreError } from "@message-store/core";
import { conversation, message, T0 } from "../fixtures.js";
import { expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const contextIds = async (store: MessageStoreApi, id: string, n: number) =>
  (await store.getImmediateContext(id, n)).map((m) => m.id);

const hitIds = async (
  store: MessageStoreApi,
  query: Parameters<MessageStoreApi["searchMessages"]>[0],
) => (await store.searchMessages(query)).map((h) => h.message.id);

const FLAG_BY_UPSERT =
  "getImmediateContext skips flagged messages, however they were flagged (flagMessage or an upsert with isFlagged)";

/** Violation 1 of issue #13: a message flagged by upsert stayed in the context window. */
export const flagByUpsert: ContractCase = {
  id: "flag-by-upsert",
  rule: FLAG_BY_UPSERT,
  title:
    "a message flagged by upsert (isFlagged: true) leaves the context window; unflagged by upsert it returns",
  async run({ store }) {
    const c = await store.storeConversation(conversation({ id: "fu-conv" }));
    await store.storeMessages(
      [1, 2, 3, 4].map((i) => message(c, { id: `fu-m${i}`, timestamp: T0 + i })),
    );
    const m3 = (await store.getMessage("fu-m3"))!;
    const flagged = await store.storeMessage({ ...m3, isFlagged: true });
    expectRule(
      FLAG_BY_UPSERT,
      "storeMessage({ …, isFlagged: true }).isFlagged",
      flagged.isFlagged,
      true,
    );
    expectRule(
      FLAG_BY_UPSERT,
      "getImmediateContext(c, 10) ids",
      await contextIds(store, c.id, 10),
      ["fu-m1", "fu-m2", "fu-m4"],
    );
    expectRule(FLAG_BY_UPSERT, "getImmediateContext(c, 2) ids", await contextIds(store, c.id, 2), [
      "fu-m2",
      "fu-m4",
    ]);
    // A new message written flagged, alone and in a batch, never enters the window either.
    await store.storeMessage(message(c, { id: "fu-m5", timestamp: T0 + 5, isFlagged: true }));
    await store.storeMessages([message(c, { id: "fu-m6", timestamp: T0 + 6, isFlagged: true })]);
    expectRule(
      FLAG_BY_UPSERT,
      "getImmediateContext(c, 2) ids after flagged inserts",
      await contextIds(store, c.id, 2),
      ["fu-m2", "fu-m4"],
    );
    await store.storeMessage({ ...m3, isFlagged: false });
    expectRule(
      FLAG_BY_UPSERT,
      "getImmediateContext(c, 10) ids after unflagging by upsert",
      await contextIds(store, c.id, 10),
      ["fu-m1", "fu-m2", "fu-m3", "fu-m4"],
    );
    // flagMessage then an upsert with isFlagged: false also brings it back.
    await store.flagMessage("fu-m4");
    await store.storeMessage({ ...(await store.getMessage("fu-m4"))!, isFlagged: false });
    expectRule(
      FLAG_BY_UPSERT,
      "getImmediateContext(c, 1) ids after flagMessage then upsert isFlagged: false",
      await contextIds(store, c.id, 1),
      ["fu-m4"],
    );
  },
};

const EMBEDDING_BY_UPSERT =
  "searchMessages ranks the embedding stored now: an upsert with embedding null (or without one) removes the message from search";

/** Violation 2 of issue #13: an embedding removed by upsert was still searchable. */
export const embeddingRemovedByUpsert: ContractCase = {
  id: "embedding-removed-by-upsert",
  rule: EMBEDDING_BY_UPSERT,
  title: "an embedding removed by upsert (embedding: null, or left out) is no longer found",
  requires: ["semanticSearch"],
  async run({ store }) {
    const c = await store.storeConversation(conversation({ id: "eu-conv", userId: "eu-user" }));
    await store.storeMessages([
      message(c, { id: "eu-a", timestamp: T0 + 1, embedding: [1, 0] }),
      message(c, { id: "eu-b", timestamp: T0 + 2, embedding: [1, 1] }),
      message(c, { id: "eu-c", timestamp: T0 + 3, embedding: [0, 1] }),
    ]);
    const q = { embedding: [1, 0] };
    expectRule(EMBEDDING_BY_UPSERT, "searchMessages ids before", await hitIds(store, q), [
      "eu-a",
      "eu-b",
      "eu-c",
    ]);
    const a = (await store.getMessage("eu-a"))!;
    await store.storeMessage({ ...a, embedding: null });
    const { embedding: _dropped, ...b } = (await store.getMessage("eu-b"))!;
    await store.storeMessages([b]);
    expectRule(
      EMBEDDING_BY_UPSERT,
      "getMessage(eu-a).embedding",
      (await store.getMessage("eu-a"))!.embedding,
      null,
    );
    expectRule(
      EMBEDDING_BY_UPSERT,
      "searchMessages ids after the upserts",
      await hitIds(store, q),
      ["eu-c"],
    );
    expectRule(
      EMBEDDING_BY_UPSERT,
      "searchMessages({ userId }) ids after the upserts",
      await hitIds(store, { ...q, userId: "eu-user" }),
      ["eu-c"],
    );
    expectRule(
      EMBEDDING_BY_UPSERT,
      "searchMessages({ conversationId }) ids after the upserts",
      await hitIds(store, { ...q, conversationId: c.id }),
      ["eu-c"],
    );
    await store.storeMessage({ ...a, embedding: [2, 0] });
    expectRule(
      EMBEDDING_BY_UPSERT,
      "searchMessages ids after a new embedding",
      await hitIds(store, q),
      ["eu-a", "eu-c"],
    );
  },
};

const USER_BY_UPSERT =
  "searchMessages({ userId }) filters by the message's userId as stored now (never a former owner's)";

/** Violation 3 of issue #13: a message whose userId changed was still found under the old user. */
export const userChangedByUpsert: ContractCase = {
  id: "user-changed-by-upsert",
  rule: USER_BY_UPSERT,
  title:
    "a message whose userId changed (by upsert, or re-created under another owner) is found only under its current owner",
  requires: ["semanticSearch"],
  async run({ store }) {
    const c = await store.storeConversation(conversation({ id: "uu-conv", userId: "uu-old" }));
    const m = await store.storeMessage(message(c, { id: "uu-m", embedding: [1, 0] }));
    const other = await store.storeConversation(conversation({ id: "uu-other", userId: "uu-new" }));
    await store.storeMessage(message(other, { id: "uu-n", embedding: [0, 1] }));
    // With the ownership rules the upsert is an IntegrityError; without them it moves the owner.
    // Either way search must agree with what getMessage shows.
    try {
      await store.storeMessage({ ...m, userId: "uu-new" });
    } catch (error) {
      if (!isMessageStoreError(error) || error.code !== "INTEGRITY") throw error;
    }
    const owner = (await store.getMessage("uu-m"))!.userId;
    const q = { embedding: [1, 0] };
    expectRule(
      USER_BY_UPSERT,
      `searchMessages({ userId: "uu-old" }) ids (stored owner ${owner})`,
      await hitIds(store, { ...q, userId: "uu-old" }),
      owner === "uu-old" ? ["uu-m"] : [],
    );
    expectRule(
      USER_BY_UPSERT,
      `searchMessages({ userId: "uu-new" }) ids (stored owner ${owner})`,
      await hitIds(store, { ...q, userId: "uu-new" }),
      owner === "uu-new" ? ["uu-m", "uu-n"] : ["uu-n"],
    );
    // The same id re-created under another owner: the old owner finds nothing any more.
    await store.deleteConversation("uu-conv");
    await store.deleteConversation("uu-other");
    const reborn = await store.storeConversation(conversation({ id: "uu-conv", userId: "uu-new" }));
    await store.storeMessage(message(reborn, { id: "uu-m", embedding: [1, 0] }));
    expectRule(
      USER_BY_UPSERT,
      'searchMessages({ userId: "uu-old" }) ids after re-creation under uu-new',
      await hitIds(store, { ...q, userId: "uu-old" }),
      [],
    );
    expectRule(
      USER_BY_UPSERT,
      'forUser("uu-old").searchMessages ids after re-creation under uu-new',
      (await store.forUser("uu-old").searchMessages(q)).map((h) => h.message.id),
      [],
    );
    expectRule(
      USER_BY_UPSERT,
      'searchMessages({ userId: "uu-new" }) ids after re-creation',
      await hitIds(store, { ...q, userId: "uu-new" }),
      ["uu-m"],
    );
  },
};

const ACTIVITY_FORWARD =
  "lastActivityAt counts the newest timestamp ever stored: an upsert that moves a message forward raises it, and lists follow";

/** `lastActivityAt` after upserts that move a message's timestamp forward (and back). */
export const activityForwardByUpsert: ContractCase = {
  id: "activity-forward-by-upsert",
  rule: ACTIVITY_FORWARD,
  title:
    "an upsert moving a message forward raises its conversation's lastActivityAt and moves it up the user's list",
  async run({ store }) {
    const a = await store.storeConversation(conversation({ id: "af-a", userId: "af-user" }));
    const b = await store.storeConversation(conversation({ id: "af-b", userId: "af-user" }));
    const m = await store.storeMessage(message(a, { id: "af-m", timestamp: T0 + 10 }));
    const [n] = await store.storeMessages([message(b, { id: "af-n", timestamp: T0 + 100 })]);
    const activity = async () => ({
      "af-a": (await store.getConversation("af-a"))?.lastActivityAt,
      "af-b": (await store.getConversation("af-b"))?.lastActivityAt,
      list: (await store.getConversationsByUserId("af-user")).items.map(
        (c) => `${c.id}@${c.lastActivityAt - T0}`,
      ),
    });
    await store.storeMessage({ ...m, timestamp: T0 + 200 });
    expectRule(ACTIVITY_FORWARD, "after storeMessage moved af-m to T0+200", await activity(), {
      "af-a": T0 + 200,
      "af-b": T0 + 100,
      list: ["af-a@200", "af-b@100"],
    });
    await store.storeMessages([{ ...n!, timestamp: T0 + 300 }]);
    expectRule(ACTIVITY_FORWARD, "after storeMessages moved af-n to T0+300", await activity(), {
      "af-a": T0 + 200,
      "af-b": T0 + 300,
      list: ["af-b@300", "af-a@200"],
    });
    // Moved back, the message leaves the activity where it was: it counts every timestamp ever stored.
    await store.storeMessage({ ...m, timestamp: T0 + 5 });
    expectRule(ACTIVITY_FORWARD, "after storeMessage moved af-m back to T0+5", await activity(), {
      "af-a": T0 + 200,
      "af-b": T0 + 300,
      list: ["af-b@300", "af-a@200"],
    });
  },
};
