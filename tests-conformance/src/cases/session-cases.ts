import type { Message, MessageStoreApi, SessionTurn } from "@message-store/core";
import { allMessages } from "../dump.js";
import { assertRule, expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const SESSION_ATOMIC =
  "storeSessionMessages is one atomic write: two calls racing on one session never interleave, and timestamps strictly increase";

const ROUNDS = 20;

const turnsOf = (who: string, round: number): SessionTurn[] =>
  [0, 1, 2].map((i) => ({
    role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
    content: `${who} ${round}.${i}`,
  }));

/** Fails unless `transcript` is in strictly increasing timestamp order. */
function checkIncreasing(label: string, transcript: Message[]): void {
  const i = transcript.findIndex((m, k) => k > 0 && m.timestamp <= transcript[k - 1]!.timestamp);
  assertRule(
    SESSION_ATOMIC,
    i === -1,
    `${label}: ${transcript[i - 1]?.id} at ${transcript[i - 1]?.timestamp} is followed by ${transcript[i]?.id} at ${transcript[i]?.timestamp}`,
  );
}

/**
 * Two `storeSessionMessages` calls of three turns each, racing on one session: from two store
 * instances when the adapter can open several, else concurrently on one. Twenty rounds.
 */
export const sessionRace: ContractCase = {
  id: "session-race",
  rule: SESSION_ATOMIC,
  title:
    "two storeSessionMessages calls racing on one session, 20 rounds: each call's messages are contiguous, timestamps strictly increase",
  async run(ctx) {
    const { store } = ctx;
    const other: MessageStoreApi = ctx.openAnother ? await ctx.openAnother() : store;
    const id = "sr-session";
    const options = { userId: "sr-user" };
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b] = await Promise.all([
        store.storeSessionMessages(id, turnsOf("a", round), options),
        other.storeSessionMessages(id, turnsOf("b", round), options),
      ]);
      const transcript = await allMessages(store, id);
      const ids = transcript.map((m) => m.id);
      for (const [who, call] of [
        ["a", a],
        ["b", b],
      ] as const) {
        const at = ids.indexOf(call[0]!.id);
        expectRule(
          SESSION_ATOMIC,
          `round ${round}: the transcript from call ${who}'s first message on (contents)`,
          transcript.slice(at, at + 3).map((m) => m.originalContent),
          call.map((m) => m.originalContent),
        );
        expectRule(
          SESSION_ATOMIC,
          `round ${round}: call ${who} resolved to what the transcript holds`,
          call,
          transcript.slice(at, at + 3),
        );
      }
      checkIncreasing(`round ${round}: transcript`, transcript);
    }
    const count = (await allMessages(store, id)).length;
    assertRule(SESSION_ATOMIC, count === ROUNDS * 6, `${count} messages, expected ${ROUNDS * 6}`);
  },
};

const SESSION_RETRY =
  "a retried storeSessionMessages (same turn ids) keeps the stored timestamps and the transcript's order";

/** A retry of a whole call, then a call that repeats two turns and adds one. */
export const sessionRetry: ContractCase = {
  id: "session-retry",
  rule: SESSION_RETRY,
  title:
    "storeSessionMessages retried with the same turn ids keeps their timestamps and order: [q1 a1 q2] stays [q1 a1 q2]",
  async run({ store }) {
    const id = "sq-session";
    const options = { userId: "sq-user" };
    const q1: SessionTurn = { id: "sq-q1", role: "user", content: "q1" };
    const a1: SessionTurn = { id: "sq-a1", role: "assistant", content: "a1" };
    const q2: SessionTurn = { id: "sq-q2", role: "user", content: "q2" };
    const first = await store.storeSessionMessages(id, [q1, a1, q2], options);
    const activity = (await store.getConversation(id))?.lastActivityAt;
    const again = await store.storeSessionMessages(id, [q1, a1, q2], options);
    expectRule(SESSION_RETRY, "the same call again: resolved messages", again, first);
    expectRule(
      SESSION_RETRY,
      "the same call again: transcript",
      await allMessages(store, id),
      first,
    );
    expectRule(
      SESSION_RETRY,
      "the same call again: lastActivityAt",
      (await store.getConversation(id))?.lastActivityAt,
      activity,
    );
    const n1: SessionTurn = { id: "sq-n1", role: "user", content: "n1" };
    const mixed = await store.storeSessionMessages(id, [q1, a1, n1], options);
    expectRule(
      SESSION_RETRY,
      "[q1 a1 n1] after [q1 a1 q2]: timestamps of q1 and a1",
      mixed.slice(0, 2).map((m) => m.timestamp),
      first.slice(0, 2).map((m) => m.timestamp),
    );
    const transcript = await allMessages(store, id);
    expectRule(
      SESSION_RETRY,
      "[q1 a1 n1] after [q1 a1 q2]: transcript ids",
      transcript.map((m) => m.id),
      ["sq-q1", "sq-a1", "sq-q2", "sq-n1"],
    );
    const [, , stored, added] = transcript;
    assertRule(
      SESSION_RETRY,
      stored !== undefined && added !== undefined && added.timestamp > stored.timestamp,
      `the new turn (at ${added?.timestamp}) is not after sq-q2 (at ${stored?.timestamp})`,
    );
  },
};

const END_OF_TIME =
  "storeSessionMessages refuses (IntegrityError, nothing stored) when its timestamps would pass Number.MAX_SAFE_INTEGER";

/** A message stored at the last safe timestamp leaves a session no later one to give. */
export const sessionEndOfTime: ContractCase = {
  id: "session-end-of-time",
  rule: END_OF_TIME,
  title:
    "after a message at Number.MAX_SAFE_INTEGER, storeSessionMessages is an IntegrityError naming the end of time and stores nothing",
  async run({ store }) {
    const owner = { userId: "eot-user" };
    await store.storeSessionMessages("eot-conv", [{ role: "user", content: "first" }], owner);
    await store.storeMessage({
      id: "eot-last",
      conversationId: "eot-conv",
      userId: "eot-user",
      role: "assistant",
      originalContent: "at the end of time",
      timestamp: Number.MAX_SAFE_INTEGER,
    });
    const before = await allMessages(store, "eot-conv");
    const outcome = await store
      .storeSessionMessages("eot-conv", [{ id: "eot-next", role: "user", content: "next" }], owner)
      .then(
        () => "resolved",
        (error: { code?: string; message?: string }) =>
          `${error.code}${/end of time/.test(error.message ?? "") ? " (end of time)" : ""}`,
      );
    expectRule(
      END_OF_TIME,
      "storeSessionMessages after the end of time",
      outcome,
      "INTEGRITY (end of time)",
    );
    expectRule(
      END_OF_TIME,
      "the transcript after the refusal",
      await allMessages(store, "eot-conv"),
      before,
    );
  },
};
