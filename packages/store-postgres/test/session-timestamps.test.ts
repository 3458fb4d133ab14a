import { IntegrityError, type Message } from "@message-store/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { conversation, message, openStore, useDatabase, withClient } from "./helpers.js";

/**
 * `storeSessionMessages` chooses its timestamps inside the batch write (`ms_write_messages`; the
 * partitioned layout's own), under the conversation's lock: a turn whose id is
 * stored in the conversation keeps its timestamp and place, every other turn `i` gets `start + i`
 * with `start = max(now, lastActivityAt + 1)`. In both layouts.
 */

const db = useDatabase("ms_pg_session_timestamps");
const layouts = [
  ["default", "plain", undefined],
  ["partitioned", "parted", 4],
] as const;
const stores = new Map<string, PostgresMessageStore>();
const HOUR = 3_600_000;

beforeAll(async () => {
  for (const [name, schema, partitions] of layouts) {
    stores.set(name, await openStore(db.url(), { schema, ...(partitions ? { partitions } : {}) }));
  }
});
afterAll(async () => {
  for (const store of stores.values()) await store.close();
});

const turn = (content: string, id?: string) => ({
  role: "user" as const,
  content,
  ...(id ? { id } : {}),
});

/** `[id, timestamp]` of the transcript, in its order. */
async function transcript(store: PostgresMessageStore, id: string): Promise<[string, number][]> {
  return (await store.loadSessionMessages(id)).map((m) => [m.id, m.timestamp]);
}

describe.each(layouts)("%s layout", (name, schema) => {
  let store: PostgresMessageStore;
  beforeEach(async () => {
    store = stores.get(name)!;
    await withClient(db.url(), (c) => c.query(`TRUNCATE ${schema}.conversations CASCADE`));
  });

  it("a new conversation's turns get now, now + 1, …", async () => {
    const before = Date.now();
    const stored = await store.storeSessionMessages("s", [turn("a"), turn("b"), turn("c")], {
      userId: "u1",
    });
    const after = Date.now();
    const [first] = stored.map((m) => m.timestamp);
    expect(first).toBeGreaterThanOrEqual(before);
    expect(first).toBeLessThanOrEqual(after);
    expect(stored.map((m) => m.timestamp)).toEqual([first, first! + 1, first! + 2]);
    expect((await store.getConversation("s"))!.createdAt).toBe(first);
    expect(await transcript(store, "s")).toEqual(stored.map((m) => [m.id, m.timestamp]));
  });

  it("later turns start after the conversation's activity, even one in the future", async () => {
    const future = Date.now() + HOUR;
    await store.storeConversation(conversation("s", "u1"));
    await store.storeMessage(message("late", "s", future));
    const stored = await store.storeSessionMessages("s", [turn("a"), turn("b")], {
      userId: "u1",
    });
    expect(stored.map((m) => m.timestamp)).toEqual([future + 1, future + 2]);
    expect((await store.getConversation("s"))!.lastActivityAt).toBe(future + 2);
    // An updatedAt in the future counts as activity too.
    await store.storeConversation(conversation("t", "u1", { updatedAt: future + HOUR }));
    const [next] = await store.storeSessionMessages("t", [turn("c")], { userId: "u1" });
    expect(next!.timestamp).toBe(future + HOUR + 1);
  });

  it("a conversation whose activity is at the end of time refuses new turns with IntegrityError, nothing stored", async () => {
    await store.storeConversation(conversation("s", "u1"));
    await store.storeMessage(message("last", "s", Number.MAX_SAFE_INTEGER - 1));
    // One turn still fits at MAX_SAFE_INTEGER; two do not, and neither is stored.
    const refused = store.storeSessionMessages("s", [turn("a"), turn("b")], { userId: "u1" });
    await expect(refused).rejects.toThrow(IntegrityError);
    await expect(refused).rejects.toThrow(/activity is at the end of time.*nothing was stored/);
    const [fits] = await store.storeSessionMessages("s", [turn("c", "t-c")], { userId: "u1" });
    expect(fits!.timestamp).toBe(Number.MAX_SAFE_INTEGER);
    await expect(store.storeSessionMessages("s", [turn("d")], { userId: "u1" })).rejects.toThrow(
      /lastActivityAt 9007199254740991/,
    );
    // A retry of a stored turn needs no new timestamp.
    await store.storeSessionMessages("s", [turn("c", "t-c")], { userId: "u1" });
    expect((await transcript(store, "s")).map(([id]) => id)).toEqual(["last", "t-c"]);
  });

  it("a retried turn keeps its stored timestamp and place; a new one goes after the newest", async () => {
    const first = await store.storeSessionMessages("s", [turn("a", "t1"), turn("b", "t2")], {
      userId: "u1",
    });
    const [t1, t2] = first.map((m) => m.timestamp) as [number, number];
    const retried = await store.storeSessionMessages(
      "s",
      [turn("a again", "t1"), turn("b", "t2"), turn("c", "t3")],
      { userId: "u1" },
    );
    // t3 is turn 2 of the call: start + 2, start = max(now, t2 + 1).
    const t3 = retried[2]!.timestamp;
    expect(retried.map((m) => m.timestamp)).toEqual([t1, t2, t3]);
    expect(t3).toBeGreaterThanOrEqual(t2 + 3);
    const read = await Promise.all(["t1", "t2", "t3"].map((id) => store.getMessage(id)));
    expect(read).toEqual(retried);
    expect(read[0]!.originalContent).toBe("a again");
    expect(await transcript(store, "s")).toEqual([
      ["t1", t1],
      ["t2", t2],
      ["t3", t3],
    ]);
  });

  it("concurrent calls on one session never interleave", async () => {
    const calls = Array.from({ length: 12 }, (_, i) =>
      store.storeSessionMessages("s", [turn(`${i}.0`), turn(`${i}.1`), turn(`${i}.2`)], {
        userId: "u1",
      }),
    );
    const results = await Promise.all(calls);
    const rows = await store.loadSessionMessages("s");
    expect(rows).toHaveLength(36);
    // Each call's turns are consecutive in the transcript, with consecutive timestamps, and
    // the transcript's timestamps strictly increase (no ties to break by receipt order).
    const position = new Map(rows.map((m, i) => [m.id, i]));
    for (const stored of results) {
      const at = stored.map((m) => position.get(m.id)!);
      expect(at).toEqual([at[0]!, at[0]! + 1, at[0]! + 2]);
      const [ts] = stored.map((m) => m.timestamp);
      expect(stored.map((m) => m.timestamp)).toEqual([ts, ts! + 1, ts! + 2]);
    }
    const stamps = rows.map((m: Message) => m.timestamp);
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1]!)).toBe(true);
  });

  it("refuses a soft-deleted conversation and another user's, storing nothing", async () => {
    await store.storeConversation(conversation("gone", "u1"));
    await store.softDeleteConversation("gone");
    await expect(
      store.storeSessionMessages("gone", [turn("x")], { userId: "u1" }),
    ).rejects.toBeInstanceOf(IntegrityError);
    await store.storeConversation(conversation("theirs", "u2"));
    await expect(
      store.storeSessionMessages("theirs", [turn("x")], { userId: "u1" }),
    ).rejects.toBeInstanceOf(IntegrityError);
    const rows = await withClient(db.url(), (c) => c.query(`SELECT id FROM ${schema}.messages`));
    expect(rows.rows).toEqual([]);
  });
});
