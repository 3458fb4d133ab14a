import { allMessages } from "../dump.js";
import { conversation, DAY, message, T0, trace } from "../fixtures.js";
import { assertRule, expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const WITH_DELETED = { includeDeleted: true } as const;

const PURGE_STRICT =
  "purgeDeleted({ before }) removes what was soft-deleted strictly before `before`: a record deleted exactly at `before` stays";

/**
 * `before` is exclusive. The records are imported soft-deleted (a new record may carry
 * `deletedAt`), so their stamps are exact: a conversation, a message and a trace deleted at
 * `AT`, a message deleted just before it.
 */
export const purgeBeforeExclusive: ContractCase = {
  id: "purge-before-exclusive",
  rule: PURGE_STRICT,
  title: "purgeDeleted({ before: t }) keeps records soft-deleted at t and removes those before t",
  requires: ["softDelete"],
  async run({ store }) {
    const AT = T0 + 5_000;
    const live = await store.storeConversation(conversation({ id: "pb-live", userId: "pb-user" }));
    const [, at, kept] = await store.storeMessages([
      message(live, { id: "pb-early", timestamp: T0 + 1, deletedAt: AT - 1 }),
      message(live, { id: "pb-at", role: "assistant", timestamp: T0 + 2, deletedAt: AT }),
      message(live, { id: "pb-kept", role: "assistant", timestamp: T0 + 3 }),
    ]);
    await store.storeTurnTrace(trace(at!, { id: "pb-at-t", deletedAt: AT }));
    await store.storeTurnTrace(trace(kept!, { id: "pb-lone-t", deletedAt: AT }));
    const gone = await store.storeConversation(
      conversation({ id: "pb-gone", userId: "pb-user", deletedAt: AT }),
    );
    const [gm] = await store.storeMessages([
      message(gone, { id: "pb-gone-m", role: "assistant", deletedAt: AT }),
    ]);
    await store.storeTurnTrace(trace(gm!, { id: "pb-gone-t", deletedAt: AT }));

    expectRule(
      PURGE_STRICT,
      `purgeDeleted({ before: AT }) (AT = ${AT})`,
      await store.purgeDeleted({ before: AT }),
      { conversations: 0, messages: 1, turnTraces: 0 },
    );
    const present = async () => ({
      "getConversation(pb-gone)": (await store.getConversation("pb-gone", WITH_DELETED))?.id,
      "getMessage(pb-early)": (await store.getMessage("pb-early", WITH_DELETED))?.id,
      "getMessage(pb-at)": (await store.getMessage("pb-at", WITH_DELETED))?.id,
      "getMessage(pb-gone-m)": (await store.getMessage("pb-gone-m", WITH_DELETED))?.id,
      "getTurnTraceByMessageId(pb-at)": (await store.getTurnTraceByMessageId("pb-at", WITH_DELETED))
        ?.id,
      "getTurnTraceByMessageId(pb-kept)": (
        await store.getTurnTraceByMessageId("pb-kept", WITH_DELETED)
      )?.id,
    });
    expectRule(PURGE_STRICT, "records left after purgeDeleted({ before: AT })", await present(), {
      "getConversation(pb-gone)": "pb-gone",
      "getMessage(pb-early)": undefined,
      "getMessage(pb-at)": "pb-at",
      "getMessage(pb-gone-m)": "pb-gone-m",
      "getTurnTraceByMessageId(pb-at)": "pb-at-t",
      "getTurnTraceByMessageId(pb-kept)": "pb-lone-t",
    });
    expectRule(
      PURGE_STRICT,
      "purgeDeleted({ before: AT + 1 })",
      await store.purgeDeleted({ before: AT + 1 }),
      { conversations: 1, messages: 2, turnTraces: 3 },
    );
    expectRule(
      PURGE_STRICT,
      "transcript of pb-live after both purges",
      (await allMessages(store, "pb-live")).map((m) => m.id),
      ["pb-kept"],
    );
  },
};

const STAMP_BUMPED =
  "softDeleteConversation stamps after every deletedAt already in the conversation, so restoreConversation brings back only what was deleted with it";

/**
 * The stamp is bumped past earlier ones without two deletes in one millisecond: a message and a
 * trace imported soft-deleted at future instants, then the conversation soft-deleted now.
 */
export const softDeleteStampBumped: ContractCase = {
  id: "soft-delete-stamp-bumped",
  rule: STAMP_BUMPED,
  title:
    "a conversation soft-deleted before a record's future deletedAt is stamped after it; restoring it leaves that record deleted",
  requires: ["softDelete"],
  async run({ store }) {
    const future = Date.now() + DAY;
    const c = await store.storeConversation(conversation({ id: "sb-conv", userId: "sb-user" }));
    const [live, , traced] = await store.storeMessages([
      message(c, { id: "sb-live", timestamp: T0 + 1 }),
      message(c, { id: "sb-future", timestamp: T0 + 2, deletedAt: future }),
      message(c, { id: "sb-traced", role: "assistant", timestamp: T0 + 3 }),
    ]);
    await store.storeTurnTrace(trace(traced!, { id: "sb-t", deletedAt: future + 10 }));
    assertRule(
      STAMP_BUMPED,
      await store.softDeleteConversation(c.id),
      "softDeleteConversation resolved false",
    );
    const stamp = (await store.getConversation(c.id, WITH_DELETED))?.deletedAt ?? null;
    assertRule(
      STAMP_BUMPED,
      stamp !== null && stamp > future + 10,
      `getConversation(sb-conv).deletedAt is ${stamp}, not after the newest stamp in it (${future + 10})`,
    );
    expectRule(
      STAMP_BUMPED,
      "deletedAt of sb-live, sb-future and sb-t after softDeleteConversation",
      [
        (await store.getMessage("sb-live", WITH_DELETED))?.deletedAt,
        (await store.getMessage("sb-future", WITH_DELETED))?.deletedAt,
        (await store.getTurnTraceByMessageId("sb-traced", WITH_DELETED))?.deletedAt,
      ],
      [stamp, future, future + 10],
    );
    assertRule(
      STAMP_BUMPED,
      await store.restoreConversation(c.id),
      "restoreConversation resolved false",
    );
    expectRule(
      STAMP_BUMPED,
      "transcript ids after restoreConversation",
      (await allMessages(store, c.id)).map((m) => m.id),
      [live!.id, traced!.id],
    );
    expectRule(
      STAMP_BUMPED,
      "deletedAt of sb-future and sb-t after restoreConversation",
      [
        (await store.getMessage("sb-future", WITH_DELETED))?.deletedAt,
        (await store.getTurnTraceByMessageId("sb-traced", WITH_DELETED))?.deletedAt,
      ],
      [future, future + 10],
    );
  },
};
