import { isMessageStoreError } from "@message-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { conversation, message, openStore, trace, useDatabase, withClient } from "./helpers.js";

/**
 * Every write that removes an id (delete, purge, erasure, a conversation's cascade) raced against
 * an upsert of the same id, from another pool, of messages and of traces, in both layouts. Even
 * races upsert into the record's own conversation, odd ones into another user's (a reuse of the
 * id once it is gone). Whatever wins, the store's rows are counted in SQL afterwards: no record
 * without its lookup row, no lookup row naming another conversation than its live record's, no
 * id stored twice (the partitioned layout's lookups, `id-lookups.ts`; the default layout's
 * primary keys). A refused write is an IntegrityError or NotFoundError, never a deadlock.
 *
 * `MESSAGE_STORE_ID_RACES` races per pair (default 25; 1,000 for a release check).
 */

const RACES = Number(process.env.MESSAGE_STORE_ID_RACES ?? 25);
/** A race takes a few milliseconds; under load, up to ~60. */
const TIMEOUT = Math.max(60_000, RACES * 150);
const LAYOUTS = [
  { name: "default layout", partitions: undefined, db: useDatabase("ms_pg_id_races") },
  { name: "partitioned layout", partitions: 8, db: useDatabase("ms_pg_id_races_p") },
];

/** One race: the record is stored by `setup`, then `remove` and `upsert` run at once. */
interface Pair {
  name: string;
  kind: "messages" | "turn_traces";
  remove: (s: PostgresMessageStore, r: Race) => Promise<unknown>;
}

/** The ids of race `i` of a pair. */
interface Race {
  user: string;
  other: string;
  home: string;
  away: string;
  id: string;
  /** The second message (in `away`) a trace moves to in odd races. */
  awayMessage: string;
  traceId: string;
  /** The upsert goes to `away` (another user's conversation). */
  elsewhere: boolean;
  /** The record is stored soft-deleted (purge races). */
  deletedAt: number | undefined;
}

const PAIRS: Pair[] = [
  { name: "delete", kind: "messages", remove: (s, r) => s.deleteMessage(r.id) },
  {
    name: "purge",
    kind: "messages",
    remove: (s, r) => s.purgeDeleted({ before: 3_000, userId: r.user }),
  },
  { name: "erasure", kind: "messages", remove: (s, r) => s.deleteUserData(r.user) },
  { name: "cascade", kind: "messages", remove: (s, r) => s.deleteConversation(r.home) },
  { name: "delete", kind: "turn_traces", remove: (s, r) => s.deleteMessage(r.id) },
  {
    name: "purge",
    kind: "turn_traces",
    remove: (s, r) => s.purgeDeleted({ before: 3_000, userId: r.user }),
  },
  { name: "erasure", kind: "turn_traces", remove: (s, r) => s.deleteUserData(r.user) },
  { name: "cascade", kind: "turn_traces", remove: (s, r) => s.deleteConversation(r.home) },
];

function race(pair: Pair, i: number): Race {
  const key = `${pair.kind}-${pair.name}-${i}`;
  return {
    user: `u-${key}`,
    other: `v-${key}`,
    home: `home-${key}`,
    away: `away-${key}`,
    id: `m-${key}`,
    awayMessage: `n-${key}`,
    traceId: `t-${key}`,
    elsewhere: i % 2 === 1,
    deletedAt: pair.name === "purge" ? 2_000 : undefined,
  };
}

/** Stores the race's conversations and the record under test (and the away message). */
async function setup(s: PostgresMessageStore, pair: Pair, r: Race): Promise<void> {
  await s.storeConversation(conversation(r.home, r.user));
  await s.storeConversation(conversation(r.away, r.other));
  const messageDeletedAt = pair.kind === "messages" ? r.deletedAt : undefined;
  await s.storeMessage(
    message(r.id, r.home, 1_500, { userId: r.user, deletedAt: messageDeletedAt }),
  );
  if (pair.kind === "turn_traces") {
    await s.storeMessage(message(r.awayMessage, r.away, 1_500, { userId: r.other }));
    await s.storeTurnTrace(trace(r.traceId, r.id, r.home, { deletedAt: r.deletedAt }));
  }
}

/** The upsert of the race: the same id, again in its conversation or in the other user's. */
function upsert(s: PostgresMessageStore, pair: Pair, r: Race): Promise<unknown> {
  if (pair.kind === "messages") {
    const [conv, userId] = r.elsewhere ? [r.away, r.other] : [r.home, r.user];
    return s.storeMessage(
      message(r.id, conv, 1_600, { userId, deletedAt: r.deletedAt, originalContent: "again" }),
    );
  }
  const [messageId, conv] = r.elsewhere ? [r.awayMessage, r.away] : [r.id, r.home];
  return s.storeTurnTrace(trace(r.traceId, messageId, conv, { deletedAt: r.deletedAt }));
}

/** The counts the races of `pair` must leave at 0 (its own records: their ids start alike). */
async function damage(url: string, pair: Pair, partitioned: boolean) {
  const table = pair.kind;
  const lookup = table === "messages" ? "message_ids" : "trace_ids";
  const own = `r.id LIKE $1`;
  const twice = `SELECT count(*)::int FROM (SELECT r.id FROM ${table} r WHERE ${own}
                                              GROUP BY r.id HAVING count(*) > 1) d`;
  const checks = partitioned
    ? `SELECT (SELECT count(*)::int FROM ${table} r WHERE ${own}
                  AND NOT EXISTS (SELECT 1 FROM ${lookup} l WHERE l.id = r.id)) AS without_lookup,
              (SELECT count(*)::int FROM ${table} r JOIN ${lookup} l ON l.id = r.id
                WHERE ${own} AND l.conversation_id <> r.conversation_id) AS lookup_elsewhere,
              (${twice}) AS stored_twice`
    : `SELECT 0 AS without_lookup, 0 AS lookup_elsewhere, (${twice}) AS stored_twice`;
  const prefix = `${table === "messages" ? "m" : "t"}-${pair.kind}-${pair.name}-%`;
  return withClient(url, async (c) => (await c.query(checks, [prefix])).rows[0]);
}

describe.each(LAYOUTS)("racing removals of an id against its upsert: $name", (layout) => {
  let stores: PostgresMessageStore[];

  beforeAll(async () => {
    const options = layout.partitions === undefined ? {} : { partitions: layout.partitions };
    stores = await Promise.all([0, 1].map(() => openStore(layout.db.url(), options)));
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  it.each(PAIRS)(
    `${RACES} races: $name vs upsert of $kind`,
    async (pair) => {
      const [a, b] = stores as [PostgresMessageStore, PostgresMessageStore];
      const outcomes = { removed: 0, upserted: 0 };
      for (let i = 0; i < RACES; i++) {
        const r = race(pair, i);
        await setup(a, pair, r);
        // Alternate which call starts first, so either may reach the server first.
        const calls = [() => pair.remove(a, r), () => upsert(b, pair, r)];
        if (i % 4 >= 2) calls.reverse();
        const settled = await Promise.allSettled(calls.map((call) => call()));
        for (const s of settled) {
          if (s.status === "rejected") {
            const code = isMessageStoreError(s.reason) ? s.reason.code : String(s.reason);
            expect(["INTEGRITY", "NOT_FOUND"], String(s.reason)).toContain(code);
          }
        }
        const [removed, upserted] = i % 4 >= 2 ? [settled[1]!, settled[0]!] : settled;
        if (removed?.status === "fulfilled") outcomes.removed++;
        if (upserted?.status === "fulfilled") outcomes.upserted++;
      }
      expect(await damage(layout.db.url(), pair, layout.partitions !== undefined)).toEqual({
        without_lookup: 0,
        lookup_elsewhere: 0,
        stored_twice: 0,
      });
      // The races ran: every removal call settled, and some upserts were stored.
      expect(outcomes.removed).toBe(RACES);
      expect(outcomes.upserted).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});
