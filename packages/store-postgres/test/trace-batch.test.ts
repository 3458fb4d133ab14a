import { IntegrityError } from "@message-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { conversation, message, openStore, trace, useDatabase } from "./helpers.js";

/**
 * `storeTurnTraces` on PostgreSQL is one statement (`ms_put_turn_traces`): all or nothing, where
 * the default of core stores the traces before a failing one (the conformance suite checks what
 * both share).
 */

const db = useDatabase("ms_pg_trace_batch");
let store: PostgresMessageStore;

beforeAll(async () => {
  store = await openStore(db.url());
  await store.storeConversation(conversation("c1", "u1"));
  await store.storeConversation(conversation("c2", "u2"));
  await store.storeMessages([
    message("m1", "c1", 1),
    message("m2", "c1", 2),
    message("m3", "c1", 3),
  ]);
  await store.storeMessages([message("n1", "c2", 1, { userId: "u2" })]);
});
afterAll(async () => {
  await store?.close();
});

describe("storeTurnTraces on PostgreSQL", () => {
  const refusals: [string, () => ReturnType<typeof trace>, RegExp][] = [
    ["a missing message", () => trace("bad", "nope", "c1"), /message "nope" does not exist/],
    [
      "a message of another conversation",
      () => trace("bad", "n1", "c1"),
      /message "n1" belongs to another conversation than "c1"/,
    ],
    ["another owner", () => trace("bad", "m3", "c1", { userId: "u2" }), /userId and tenantId/],
    ["a second trace for a message", () => trace("bad", "m1", "c1"), /already has a turn trace/],
  ];
  for (const [what, bad, text] of refusals) {
    it(`stores nothing of a batch with ${what}, and names the failing trace`, async () => {
      await store.storeTurnTraces([trace("first", "m1", "c1")]).catch(() => undefined);
      const before = await store.getTurnTraceByMessageId("m2");
      const error = await store
        .storeTurnTraces([trace("ok", "m2", "c1", { totalTokens: 777 }), bad()])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IntegrityError);
      expect((error as Error).message).toMatch(text);
      expect(await store.getTurnTraceByMessageId("m2")).toEqual(before);
    });
  }

  it("fills userId and tenantId from the conversation and resolves in input order", async () => {
    const stored = await store.storeTurnTraces([
      trace("z", "m3", "c1", { userId: null }),
      trace("a", "n1", "c2", { userId: null }),
    ]);
    expect(stored.map((t) => [t.id, t.userId])).toEqual([
      ["z", "u1"],
      ["a", "u2"],
    ]);
    expect(await store.getTurnTraceByMessageId("n1")).toEqual(stored[1]);
  });
});
