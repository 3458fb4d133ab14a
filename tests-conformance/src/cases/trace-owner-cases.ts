import { isMessageStoreError, type MessageStoreApi } from "@message-store/core";
import { checkpoint } from "../checkpoint-fixtures.js";
import { allTraces } from "../dump.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import { assertRule, expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const OWNER_FIRST =
  "a trace write checks ownership before the other rules (the conversation's owner, the message's, the message's conversation, then the trace id's owner): through a view, another owner's trace id is NotFoundError even when another rule breaks too";

const SAME_AS_MISSING =
  "through a view, a trace naming another owner's message is refused exactly as one naming a missing message (NotFoundError, the same words): the view learns nothing of the other owner's message";

/** How `write` settles: its error's code and message, or `"resolved"`. */
async function outcome(write: () => Promise<unknown>): Promise<{ code: string; text: string }> {
  try {
    await write();
    return { code: "resolved", text: "" };
  } catch (error) {
    const code = isMessageStoreError(error) ? error.code : `not a store error: ${String(error)}`;
    return { code, text: (error as Error).message };
  }
}

/**
 * Bob's view writes alice's trace id onto bob's own message, in a batch after another trace on
 * that message and alone onto a message that already has a trace: both break "one trace per
 * message" too, but the trace id's owner is checked first, so both are "does not exist".
 */
export const traceOwnerFirst: ContractCase = {
  id: "trace-owner-first",
  rule: OWNER_FIRST,
  title:
    "through a view, another owner's trace id on the view's own message that already has a trace is NotFoundError (ownership before one-trace-per-message), in batches and alone",
  async run({ store }) {
    const a = await store.storeConversation(conversation({ id: "of-alice", userId: "alice" }));
    const ma = await store.storeMessage(message(a, { id: "of-alice-m", role: "assistant" }));
    const alicesTrace = await store.storeTurnTrace(trace(ma, { id: "of-alice-t" }));
    const b = await store.storeConversation(conversation({ id: "of-bob", userId: "bob" }));
    const [m1, m2] = await store.storeMessages([
      message(b, { id: "of-bob-m1", role: "assistant", timestamp: T0 + 1 }),
      message(b, { id: "of-bob-m2", role: "assistant", timestamp: T0 + 2 }),
    ]);
    const bob = store.forUser("bob");
    await bob.storeTurnTrace(trace(m2!, { id: "of-bob-t2" }));
    const attempts: [string, () => Promise<unknown>][] = [
      [
        'forUser("bob").storeTurnTraces([of-bob-t1 on of-bob-m1, of-alice-t on of-bob-m1])',
        () =>
          bob.storeTurnTraces([trace(m1!, { id: "of-bob-t1" }), trace(m1!, { id: "of-alice-t" })]),
      ],
      [
        'forUser("bob").storeTurnTraces([of-alice-t on of-bob-m2]) (of-bob-m2 has of-bob-t2)',
        () => bob.storeTurnTraces([trace(m2!, { id: "of-alice-t" })]),
      ],
      [
        'forUser("bob").storeTurnTrace(of-alice-t on of-bob-m2) (of-bob-m2 has of-bob-t2)',
        () => bob.storeTurnTrace(trace(m2!, { id: "of-alice-t" })),
      ],
    ];
    for (const [label, write] of attempts) {
      const { code, text } = await outcome(write);
      expectRule(OWNER_FIRST, `${label} rejects with`, code, "NOT_FOUND");
      assertRule(
        OWNER_FIRST,
        text.includes("of-alice-t") && !text.includes("of-alice-m"),
        `${label}: the error should name the trace id of-alice-t as missing, got: ${text}`,
      );
    }
    expectRule(
      OWNER_FIRST,
      "alice's trace afterwards",
      await store.getTurnTraceByMessageId("of-alice-m"),
      alicesTrace,
    );
  },
};

/**
 * Alice's view writes traces into her own conversation naming bob's message, and naming a
 * message that does not exist: single traces, batches and (with `checkpoints`) a checkpoint put's
 * traces. Each pair must answer the same `NotFoundError`, ids aside, and store nothing on bob's
 * message.
 */
export const viewTraceForeignMessage: ContractCase = {
  id: "view-trace-foreign-message",
  rule: SAME_AS_MISSING,
  title:
    "through a view, a trace in the view's own conversation naming another owner's message answers NotFoundError exactly as a missing message (single, batch, checkpoint put)",
  async run({ store }) {
    const a = await store.storeConversation(conversation({ id: "fm-alice", userId: "alice" }));
    const own = await store.storeMessage(message(a, { id: "fm-alice-m", role: "assistant" }));
    const b = await store.storeConversation(conversation({ id: "fm-bob-conv", userId: "bob" }));
    await store.storeMessage(message(b, { id: "fm-bob-m", role: "assistant" }));
    const alice: MessageStoreApi = store.forUser("alice");
    /** A trace in alice's conversation naming message `messageId`. */
    const naming = (id: string, messageId: string) =>
      trace({ id: messageId, conversationId: a.id, userId: a.userId }, { id });
    const writes: [string, (messageId: string, n: number) => Promise<unknown>][] = [
      ["storeTurnTrace", (m, n) => alice.storeTurnTrace(naming(`fm-t1-${n}`, m))],
      ["storeTurnTraces", (m, n) => alice.storeTurnTraces([naming(`fm-t2-${n}`, m)])],
      [
        "storeTurnTraces (after a trace on alice's own message)",
        (m, n) => alice.storeTurnTraces([trace(own, { id: "fm-t3-own" }), naming(`fm-t3-${n}`, m)]),
      ],
    ];
    if (store.capabilities.checkpoints === true) {
      writes.push([
        "putCheckpoint's traces",
        (m, n) =>
          alice.putCheckpoint(checkpoint(a.id, `fm-cp-${n}`), {
            userId: "alice",
            traces: [naming(`fm-t4-${n}`, m)],
          }),
      ]);
    }
    for (const [label, write] of writes) {
      const foreign = await outcome(() => write("fm-bob-m", 0));
      const missing = await outcome(() => write("fm-missing-m", 1));
      const who = `forUser("alice").${label}`;
      expectRule(
        SAME_AS_MISSING,
        `${who} naming a missing message rejects with`,
        missing.code,
        "NOT_FOUND",
      );
      expectRule(
        SAME_AS_MISSING,
        `${who} naming bob's message rejects with`,
        foreign.code,
        "NOT_FOUND",
      );
      assertRule(
        SAME_AS_MISSING,
        !foreign.text.includes("fm-bob-conv"),
        `${who} naming bob's message tells bob's conversation: ${foreign.text}`,
      );
      expectRule(
        SAME_AS_MISSING,
        `${who}: the error for bob's message, ids aside, against the one for a missing message`,
        foreign.text.replaceAll("fm-bob-m", "<id>").replaceAll("-0", "-<n>"),
        missing.text.replaceAll("fm-missing-m", "<id>").replaceAll("-1", "-<n>"),
      );
    }
    expectRule(
      SAME_AS_MISSING,
      "traces naming fm-bob-m",
      (await allTraces(store)).filter((t) => t.messageId === "fm-bob-m").map((t) => t.id),
      [],
    );
  },
};
