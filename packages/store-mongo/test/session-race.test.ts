import type { Message, SessionTurn } from "@message-store/core";
import { MongoClient } from "mongodb";
import { afterAll, describe, expect, inject, it } from "vitest";
import { MongoMessageStore } from "../src/index.js";
import { openFixture, transcript } from "./helpers.js";

const ROUNDS = 20;
const clients: MongoClient[] = [];
afterAll(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

/** Three turns with fixed ids, so that a call can be retried. */
function turns(prefix: string): SessionTurn[] {
  return [
    { id: `${prefix}-0`, role: "user", content: `${prefix} asks` },
    { id: `${prefix}-1`, role: "assistant", content: `${prefix} answers` },
    { id: `${prefix}-2`, role: "user", content: `${prefix} thanks` },
  ];
}

const idsOf = (ms: Message[]) => ms.map((m) => m.id);

/** The stored messages' timestamps are `start`, `start + 1`, `start + 2`. */
function expectConsecutive(ms: Message[]): void {
  const t = ms[0]!.timestamp;
  expect(ms.map((m) => m.timestamp)).toEqual([t, t + 1, t + 2]);
}

/**
 * `storeSessionMessages` chooses the timestamps inside its write: two calls racing on one session
 * never interleave, and a retry keeps what was stored. The writers are two stores on two clients
 * (two connection pools), as two application instances would be. With transactions this needs a
 * server that detects write conflicts (jongodb's transactions do not, see the README), so the
 * replica set case runs against a real `mongod` (`MESSAGE_STORE_MONGODB_URL`); the standalone
 * server exercises the claim on the conversation document that both modes rely on.
 */
describe.each([
  { name: "standalone", standalone: true, run: true },
  {
    name: "real server (MESSAGE_STORE_MONGODB_URL)",
    standalone: false,
    run: inject("externalMongo"),
  },
])("storeSessionMessages races: $name", ({ standalone, run }) => {
  async function twoStores() {
    const f = await openFixture({ standalone });
    const client = new MongoClient(f.uri, { serverSelectionTimeoutMS: 10_000 });
    clients.push(client);
    const other = await MongoMessageStore.open({ client, db: f.dbName });
    /** The stored `(timestamp, sequence)` of each message of `session`, by id. */
    const positions = async (session: string) => {
      const docs = await f.db.collection("messages").find({ conversationId: session }).toArray();
      return Object.fromEntries(docs.map((d) => [d._id, [d.timestamp, d.sequence]]));
    };
    return { a: f.store, b: other, positions };
  }

  it.runIf(run)(
    `two concurrent 3-turn calls on one session never interleave (${ROUNDS} rounds); retries keep the order`,
    async () => {
      const { a, b } = await twoStores();
      for (let round = 0; round < ROUNDS; round++) {
        const session = `sess-${round}`;
        const owner = { userId: "u" };
        // Round 0 races the creation of the conversation; later rounds race on an existing one.
        if (round > 0) await a.storeSessionMessages(session, turns(`${round}-seed`), owner);
        const seeded = await transcript(a, session);
        const [fromA, fromB] = await Promise.all([
          a.storeSessionMessages(session, turns(`${round}-a`), owner),
          b.storeSessionMessages(session, turns(`${round}-b`), owner),
        ]);
        expectConsecutive(fromA);
        expectConsecutive(fromB);
        const raced = await transcript(a, session);
        const [first, second] =
          fromA[0]!.timestamp < fromB[0]!.timestamp ? [fromA, fromB] : [fromB, fromA];
        expect(raced, `round ${round}`).toEqual([...seeded, ...idsOf(first), ...idsOf(second)]);
        expect(second[0]!.timestamp).toBeGreaterThan(first[2]!.timestamp);
        const activity = (await a.getConversation(session))!.lastActivityAt;
        expect(activity).toBe(second[2]!.timestamp);

        // A retry of A (same turn ids) racing a new call C: A keeps its timestamps and place,
        // C goes after everything.
        const [retried, fromC] = await Promise.all([
          b.storeSessionMessages(session, turns(`${round}-a`), owner),
          a.storeSessionMessages(session, turns(`${round}-c`), owner),
        ]);
        expect(retried).toEqual(fromA);
        expectConsecutive(fromC);
        expect(fromC[0]!.timestamp).toBeGreaterThan(activity);
        expect(await transcript(a, session)).toEqual([...raced, ...idsOf(fromC)]);
        expect((await a.getConversation(session))!.lastActivityAt).toBe(fromC[2]!.timestamp);
      }
    },
  );

  it.runIf(run)("a retry alone stores nothing new and moves no activity", async () => {
    const { a, b, positions } = await twoStores();
    const owner = { userId: "u", title: "kept" };
    const first = await a.storeSessionMessages("s", turns("t"), owner);
    const before = await a.getConversation("s");
    const stored = await positions("s");
    const again = await Promise.all([
      a.storeSessionMessages("s", turns("t"), owner),
      b.storeSessionMessages("s", turns("t"), owner),
    ]);
    expect(again).toEqual([first, first]);
    expect(await positions("s")).toEqual(stored);
    expect(await a.getConversation("s")).toEqual(before);
    expect(await transcript(a, "s")).toEqual(idsOf(first));
  });
});

/**
 * On jongodb's replica set, a commit that conflicts with a concurrent transaction is sometimes
 * answered by closing the connection (MongoDB reports a `WriteConflict`), and the server keeps
 * that session's transaction open. The driver's `withTransaction` retried such a commit at once
 * for up to 120 s, so a racing call spun until `operation_timeout_ms` and ended
 * `OUTCOME_UNKNOWN`. The store's own transaction loop bounds those retries with backoff and runs
 * an idempotent session write again on a new session: every racing call settles quickly. What
 * this server's transactions cannot show (each call's turns contiguous) is left to the real
 * server above.
 */
describe.runIf(!inject("externalMongo"))("storeSessionMessages races: jongodb replica set", () => {
  it(`${ROUNDS} rounds of two concurrent 3-turn calls each settle well within operation_timeout_ms, none failing`, async () => {
    const f = await openFixture({ standalone: false });
    const client = new MongoClient(f.uri, { serverSelectionTimeoutMS: 10_000 });
    clients.push(client);
    const config = { client, db: f.dbName, operation_timeout_ms: 30_000 };
    const b = await MongoMessageStore.open(config);
    const slowest: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const session = `sess-${round}`;
      const owner = { userId: "u" };
      if (round > 0) await f.store.storeSessionMessages(session, turns(`${round}-seed`), owner);
      const started = Date.now();
      const settled = await Promise.allSettled([
        f.store.storeSessionMessages(session, turns(`${round}-a`), owner),
        b.storeSessionMessages(session, turns(`${round}-b`), owner),
      ]);
      slowest.push(Date.now() - started);
      const failed = settled.filter((r) => r.status === "rejected").map((r) => String(r.reason));
      expect(failed, `round ${round}`).toEqual([]);
    }
    expect(Math.max(...slowest), `round times ${slowest.join(", ")} ms`).toBeLessThan(10_000);
  });
});
