import { conversation, message, trace } from "../fixtures.js";
import { expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const OWNERS_HOLD =
  "the ownership rules hold on every adapter, with or without tenants: a conversation's owner never changes, a message's and a trace's owner is its conversation's, and nothing moves to another conversation";

/** Records without a tenant, so that an adapter without `tenants` is held to the rules too. */
export const ownersHoldEverywhere: ContractCase = {
  id: "owners-hold-everywhere",
  rule: OWNERS_HOLD,
  title:
    "without tenant data, another owner's upsert, message or trace is an IntegrityError and a message cannot move",
  async run({ store }) {
    const a = await store.storeConversation(conversation({ id: "oh-a", userId: "alice" }));
    const b = await store.storeConversation(conversation({ id: "oh-b", userId: "alice" }));
    const m = await store.storeMessage(message(a, { id: "oh-m" }));
    const refused: [string, () => Promise<unknown>][] = [
      [
        "storeConversation(oh-a as bob)",
        () => store.storeConversation(conversation({ id: "oh-a", userId: "bob" })),
      ],
      [
        "storeMessage(bob's message in oh-a)",
        () => store.storeMessage(message({ id: "oh-a", userId: "bob" })),
      ],
      ["storeMessage(oh-m moved to oh-b)", () => store.storeMessage(message(b, { id: "oh-m" }))],
      [
        "storeTurnTrace(bob's trace on oh-m)",
        () => store.storeTurnTrace(trace(m, { userId: "bob" })),
      ],
    ];
    for (const [label, write] of refused) {
      const outcome = await write().then(
        () => "resolved",
        (error: { code?: string }) => error.code,
      );
      expectRule(OWNERS_HOLD, `${label} rejects with`, outcome, "INTEGRITY");
    }
    expectRule(
      OWNERS_HOLD,
      "getConversation(oh-a).userId",
      (await store.getConversation("oh-a"))?.userId,
      "alice",
    );
    expectRule(OWNERS_HOLD, "getMessage(oh-m)", await store.getMessage("oh-m"), m);
    expectRule(
      OWNERS_HOLD,
      "getMessagesByConversationId(oh-a) ids",
      (await store.getMessagesByConversationId("oh-a")).items.map((x) => x.id),
      ["oh-m"],
    );
    expectRule(
      OWNERS_HOLD,
      "getTurnTraceByMessageId(oh-m)",
      await store.getTurnTraceByMessageId("oh-m"),
      null,
    );
  },
};
