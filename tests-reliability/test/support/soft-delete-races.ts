import type { MessageStoreApi } from "@message-store/core";
import { expect } from "vitest";
import { conversation, message } from "./messages.js";

/** How a live write races a conversation's soft delete. */
export type LiveWrite =
  | "storeMessage"
  | "storeMessages"
  | "storeSessionMessages"
  | "restoreMessage";

export const LIVE_WRITES: readonly LiveWrite[] = [
  "storeMessage",
  "storeMessages",
  "storeSessionMessages",
  "restoreMessage",
];

/** What the rounds of a race saw. */
export interface RaceTally {
  rounds: number;
  /** Rounds in which both calls succeeded: the race the guarantee is about. */
  bothSucceeded: number;
  /** Rounds that broke the guarantee, with what was seen. */
  broken: string[];
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

/**
 * `rounds` times: a live write (`kind`) through `b` races `softDeleteConversation` through `a`
 * on the same conversation. Whatever the order, no live message may be left in the soft-deleted
 * conversation; a write that succeeded is part of the conversation, so restoring the conversation
 * brings its messages back live. The two stores may be two instances on one database.
 */
export async function raceLiveWrite(
  a: MessageStoreApi,
  b: MessageStoreApi,
  kind: LiveWrite,
  label: string,
  rounds: number,
): Promise<RaceTally> {
  const tally: RaceTally = { rounds, bothSucceeded: 0, broken: [] };
  for (let r = 0; r < rounds; r++) {
    const c = `${label}-${kind}-${r}`;
    await a.storeConversation(conversation(c));
    await a.storeMessage(message(`${c}-m0`, c, 1_000));
    const ids = kind === "storeMessages" ? [`${c}-m1`, `${c}-m2`] : [`${c}-m1`];
    if (kind === "restoreMessage") {
      await a.storeMessage(message(`${c}-m1`, c, 1_001));
      await a.softDeleteMessage(`${c}-m1`);
    }
    const [write, del] = await Promise.all([
      settle(liveWrite(b, kind, c, ids)),
      settle(a.softDeleteConversation(c)),
    ]);
    if (!del.ok) throw del.error;
    const conv = await a.getConversation(c, { includeDeleted: true });
    const stored = await Promise.all(ids.map((id) => a.getMessage(id, { includeDeleted: true })));
    const wrote = write.ok && write.value !== false;
    if (wrote && del.value) tally.bothSucceeded++;
    const liveInDeleted = stored.filter((m) => m !== null && m.deletedAt === null);
    if (conv?.deletedAt !== null && liveInDeleted.length > 0) {
      tally.broken.push(
        `${c}: ${liveInDeleted.map((m) => m!.id)} live in the soft-deleted conversation`,
      );
    }
    if (del.value) await a.restoreConversation(c);
    if (wrote) {
      const after = await Promise.all(ids.map((id) => a.getMessage(id)));
      const missing = ids.filter((_, i) => after[i] === null);
      if (missing.length > 0) tally.broken.push(`${c}: ${missing} written, not live after restore`);
    }
  }
  return tally;
}

/** The write of `ids` (live) into conversation `c`, through `store`, as `kind`. */
function liveWrite(
  store: MessageStoreApi,
  kind: LiveWrite,
  c: string,
  ids: string[],
): Promise<unknown> {
  switch (kind) {
    case "storeMessage":
      return store.storeMessage(message(ids[0]!, c, 2_000));
    case "storeMessages":
      return store.storeMessages(ids.map((id, i) => message(id, c, 2_000 + i)));
    case "storeSessionMessages":
      return store.storeSessionMessages(
        c,
        ids.map((id) => ({ id, role: "user" as const, content: id })),
        { userId: "u1" },
      );
    case "restoreMessage":
      return store.restoreMessage(ids[0]!);
  }
}

/**
 * `rounds` times: `softDeleteMessage` through `b` races `softDeleteConversation` through `a`. A
 * message deleted on its own (its soft delete returned true) stays deleted when the conversation
 * is restored: the two stamps must differ.
 */
export async function raceMessageDelete(
  a: MessageStoreApi,
  b: MessageStoreApi,
  label: string,
  rounds: number,
): Promise<RaceTally> {
  const tally: RaceTally = { rounds, bothSucceeded: 0, broken: [] };
  for (let r = 0; r < rounds; r++) {
    const c = `${label}-stamp-${r}`;
    await a.storeConversation(conversation(c));
    await a.storeMessages([message(`${c}-m0`, c, 1_000), message(`${c}-m1`, c, 1_001)]);
    const [own, del] = await Promise.all([
      b.softDeleteMessage(`${c}-m1`),
      a.softDeleteConversation(c),
    ]);
    if (own && del) tally.bothSucceeded++;
    const m1 = await a.getMessage(`${c}-m1`, { includeDeleted: true });
    const conv = await a.getConversation(c, { includeDeleted: true });
    if (del) await a.restoreConversation(c);
    const after = await a.getMessage(`${c}-m1`);
    if (own && after !== null) {
      tally.broken.push(
        `${c}: deleted on its own (deletedAt ${m1?.deletedAt}), back after restoring the conversation (deletedAt ${conv?.deletedAt})`,
      );
    }
    if (!own && !del) tally.broken.push(`${c}: neither soft delete succeeded`);
  }
  return tally;
}

/** Fails with every broken round; also requires the race to have been run for real. */
export function expectHeld(tally: RaceTally, what: string): void {
  console.info(
    `${what}: ${tally.rounds} rounds, both calls succeeded in ${tally.bothSucceeded}, broken ${tally.broken.length}`,
  );
  expect(tally.broken, what).toEqual([]);
}
