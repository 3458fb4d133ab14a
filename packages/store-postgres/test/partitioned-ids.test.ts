import { isMessageStoreError, type MessageInput } from "@message-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { conversation, message, openStore, trace, useDatabase, withClient } from "./helpers.js";

/**
 * In the partitioned layout no constraint keeps a message or trace id unique across
 * conversations (keys include `conversation_id`); the id lookups do (`id-lookups.ts`). Racing
 * writers of one id into different conversations, one by one, in small batches and in large
 * ones: exactly one wins, the others are IntegrityErrors.
 */

const db = useDatabase("ms_pg_partitioned_ids");
const RACERS = 16;
/** A batch larger than the old advisory-lock limit (64 ids). */
const LARGE_BATCH = 64;
let stores: PostgresMessageStore[];
/** Conversations c-0 … c-15 of user u1: with 8 partitions, spread over all of them. */
const conversations = Array.from({ length: RACERS }, (_, i) => conversation(`c-${i}`));

beforeAll(async () => {
  // Several stores: several pools, so the racers really run on separate connections at once.
  stores = await Promise.all(
    Array.from({ length: 4 }, () => openStore(db.url(), { partitions: 8, pool_max: 8 })),
  );
  for (const c of conversations) await stores[0]!.storeConversation(c);
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

const storeOf = (i: number) => stores[i % stores.length]!;

/** Rows holding `id` in a table, whatever their conversation. */
async function rows(table: string, id: string): Promise<number> {
  const { rows } = await withClient(db.url(), (c) =>
    c.query(`SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, [id]),
  );
  return rows[0].n;
}

/** Exactly one of `settled` fulfilled; every other one is an IntegrityError. */
function oneWinner(settled: PromiseSettledResult<unknown>[]): number {
  const won = settled.flatMap((s, i) => (s.status === "fulfilled" ? [i] : []));
  expect(won).toHaveLength(1);
  for (const s of settled) {
    if (s.status === "rejected") {
      expect(isMessageStoreError(s.reason) && s.reason.code, String(s.reason)).toBe("INTEGRITY");
    }
  }
  return won[0]!;
}

/** A batch of `size` messages into conversation `i` whose last one has the id `shared`. */
function batch(i: number, size: number, shared: string): MessageInput[] {
  return Array.from({ length: size }, (_, k) =>
    message(k === size - 1 ? shared : `${shared}-${i}-${k}`, `c-${i}`, 10 + k),
  );
}

describe("ids stay unique across partitions", () => {
  it("racing storeMessage of one id into different conversations: one wins", async () => {
    for (let round = 0; round < 5; round++) {
      const id = `solo-${round}`;
      const settled = await Promise.allSettled(
        conversations.map((c, i) => storeOf(i).storeMessage(message(id, c.id, 1))),
      );
      const winner = oneWinner(settled);
      expect((await stores[0]!.getMessage(id))?.conversationId).toBe(`c-${winner}`);
      expect(await rows("messages", id)).toBe(1);
    }
  });

  it(`racing batches, below and above ${LARGE_BATCH} ids, sharing one id: one wins, the others store nothing`, async () => {
    for (const size of [5, LARGE_BATCH + 36]) {
      const shared = `shared-${size}`;
      const settled = await Promise.allSettled(
        conversations.map((_, i) => storeOf(i).storeMessages(batch(i, size, shared))),
      );
      const winner = oneWinner(settled);
      expect(await rows("messages", shared)).toBe(1);
      const stored = await withClient(db.url(), (c) =>
        c.query("SELECT count(*)::int AS n FROM messages WHERE id LIKE $1", [`${shared}-%`]),
      );
      expect(stored.rows[0].n).toBe(size - 1);
      expect((await stores[0]!.getMessage(shared))?.conversationId).toBe(`c-${winner}`);
    }
  });

  it("a single write racing large batches for one id: one wins", async () => {
    const shared = "mixed";
    const settled = await Promise.allSettled(
      conversations.map((c, i) =>
        i % 2 === 0
          ? storeOf(i).storeMessage(message(shared, c.id, 1))
          : storeOf(i).storeMessages(batch(i, LARGE_BATCH + 1, shared)),
      ),
    );
    oneWinner(settled);
    expect(await rows("messages", shared)).toBe(1);
  });

  it("racing storeTurnTrace of one trace id on messages of different conversations: one wins", async () => {
    for (const [i, c] of conversations.entries()) {
      await storeOf(i).storeMessage(message(`answer-${i}`, c.id, 100));
    }
    const settled = await Promise.allSettled(
      conversations.map((c, i) =>
        storeOf(i).storeTurnTrace(trace("trace-shared", `answer-${i}`, c.id)),
      ),
    );
    const winner = oneWinner(settled);
    expect(await rows("turn_traces", "trace-shared")).toBe(1);
    expect((await stores[0]!.getTurnTraceByMessageId(`answer-${winner}`))?.id).toBe("trace-shared");
  });

  it("racing storeTurnTraces batches, below and above the lock limit, sharing one trace id: one wins", async () => {
    for (const size of [3, LARGE_BATCH + 6]) {
      const shared = `batch-trace-${size}`;
      for (const [i, c] of conversations.entries()) {
        await storeOf(i).storeMessages(
          Array.from({ length: size }, (_, k) => message(`${shared}-m-${i}-${k}`, c.id, 200 + k)),
        );
      }
      const settled = await Promise.allSettled(
        conversations.map((c, i) =>
          storeOf(i).storeTurnTraces(
            Array.from({ length: size }, (_, k) =>
              trace(k === 0 ? shared : `${shared}-${i}-${k}`, `${shared}-m-${i}-${k}`, c.id),
            ),
          ),
        ),
      );
      const winner = oneWinner(settled);
      expect(await rows("turn_traces", shared)).toBe(1);
      expect((await stores[0]!.getTurnTraceByMessageId(`${shared}-m-${winner}-0`))?.id).toBe(
        shared,
      );
    }
  });

  it("an upsert in the message's own conversation still works, and a later move is refused", async () => {
    const store = stores[0]!;
    await store.storeMessage(message("kept", "c-3", 1));
    const updated = await store.storeMessage({
      ...message("kept", "c-3", 2),
      originalContent: "v2",
    });
    expect(updated.originalContent).toBe("v2");
    const moved = await store.storeMessage(message("kept", "c-4", 1)).catch((e: unknown) => e);
    expect(isMessageStoreError(moved) && moved.code).toBe("INTEGRITY");
    expect((moved as Error).message).toMatch(/^\[message-store\] \[postgres\] /);
    const movedInBatch = await store
      .storeMessages([message("fresh", "c-4", 1), message("kept", "c-4", 1)])
      .catch((e: unknown) => e);
    expect(isMessageStoreError(movedInBatch) && movedInBatch.code).toBe("INTEGRITY");
    expect(await store.getMessage("fresh")).toBeNull();
    expect((await store.getMessage("kept"))?.originalContent).toBe("v2");
  });
});
