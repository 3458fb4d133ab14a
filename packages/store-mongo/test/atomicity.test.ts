import { isMessageStoreError, type MessageStoreApi } from "@message-store/core";
import { beforeEach, describe, expect, it } from "vitest";
import { conv, type Fixture, msg, openFixture, T0, traceOf } from "./helpers.js";

async function expectCode(promise: Promise<unknown>, code: string): Promise<Error> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isMessageStoreError(error) ? error.code : error).toBe(code);
  return error as Error;
}

async function snapshot(store: MessageStoreApi) {
  const a = await store.getConversation("conv-a");
  const b = await store.getConversation("conv-b");
  const ma = (await store.getMessagesByConversationId("conv-a")).items;
  const mb = (await store.getMessagesByConversationId("conv-b")).items;
  return { a, b, ma, mb };
}

describe.each([
  { name: "replica set (transactions)", standalone: false },
  { name: "standalone (no transactions)", standalone: true },
])("batch atomicity: $name", ({ standalone }) => {
  let f: Fixture;

  beforeEach(async () => {
    f = await openFixture({ standalone });
    await f.store.storeConversation(conv("conv-a"));
    await f.store.storeConversation(conv("conv-b"));
    await f.store.storeMessages([msg("a-1", "conv-a", 1), msg("a-2", "conv-a", 2)]);
    await f.store.storeMessage(msg("b-1", "conv-b", 1));
  });

  async function rawIds(): Promise<string[]> {
    const docs = await f.db.collection("messages").find({}).toArray();
    return docs.map((d) => String(d._id)).sort();
  }

  it("a batch whose third message would move another conversation's message stores none of it", async () => {
    const before = await snapshot(f.store);
    const batch = [
      msg("new-1", "conv-b", 5_000),
      msg("new-2", "conv-b", 5_001),
      msg("a-1", "conv-b", 5_002, { originalContent: "moved?" }),
      msg("new-3", "conv-b", 5_003),
    ];
    const error = await expectCode(f.store.storeMessages(batch), "INTEGRITY");
    expect(error.message).toMatch(/^\[message-store\] \[mongodb\] /);
    expect(await snapshot(f.store)).toEqual(before);
    expect(await rawIds()).toEqual(["a-1", "a-2", "b-1"]);
    // conv-b's activity did not move to the failed batch's timestamps.
    expect((await f.store.getConversation("conv-b"))?.lastActivityAt).toBe(T0 + 1);
  });

  it("a batch with a message for a missing conversation stores none of it; activity stays", async () => {
    const before = await snapshot(f.store);
    const batch = [
      msg("new-1", "conv-a", 9_000),
      msg("a-2", "conv-a", 9_001, { originalContent: "overwritten?" }),
      msg("new-2", "conv-missing", 9_002),
      msg("new-3", "conv-b", 9_003),
    ];
    await expectCode(f.store.storeMessages(batch), "INTEGRITY");
    expect(await snapshot(f.store)).toEqual(before);
    expect(before.a?.lastActivityAt).toBe(T0 + 2);
    expect(await rawIds()).toEqual(["a-1", "a-2", "b-1"]);
    expect(await f.store.getConversation("conv-missing")).toBeNull();
  });

  it("a single moving upsert stores nothing and leaves the target's activity alone", async () => {
    const before = await snapshot(f.store);
    const moving = msg("a-1", "conv-b", 7_000, { originalContent: "moved?" });
    const error = await expectCode(f.store.storeMessage(moving), "INTEGRITY");
    expect(error.message).toContain('"a-1"');
    expect(await snapshot(f.store)).toEqual(before);
  });

  it("a large batch failing on its last message stores none of it", async () => {
    const batch = Array.from({ length: 300 }, (_, i) => msg(`big-${i}`, "conv-a", 100 + i));
    batch.push(msg("b-1", "conv-a", 1_000));
    await expectCode(f.store.storeMessages(batch), "INTEGRITY");
    expect(await rawIds()).toEqual(["a-1", "a-2", "b-1"]);
    expect((await f.store.getConversation("conv-a"))?.lastActivityAt).toBe(T0 + 2);
  });

  it("after failed batches, sequences still follow receipt order", async () => {
    await expectCode(
      f.store.storeMessages([msg("x-1", "conv-a", 2), msg("a-1", "conv-b", 2)]),
      "INTEGRITY",
    );
    await f.store.storeMessages([msg("late-1", "conv-a", 2), msg("late-0", "conv-a", 2)]);
    await f.store.storeMessage(msg("late-2", "conv-a", 2));
    const ids = (await f.store.getMessagesByConversationId("conv-a")).items.map((m) => m.id);
    expect(ids).toEqual(["a-1", "a-2", "late-1", "late-0", "late-2"]);
  });

  it("a trace batch refused at a later trace is all or nothing exactly when atomicTraceBatches is declared", async () => {
    const atomic = f.store.capabilities.atomicTraceBatches === true;
    expect(atomic).toBe(!standalone);
    for (const [what, bad] of [
      ["a second trace for a message", traceOf("t-3", "a-1", "conv-a")],
      ["a stored trace id moving to another message", traceOf("t-0", "a-2", "conv-a")],
      ["a missing message", traceOf("t-3", "nope", "conv-a")],
    ] as const) {
      await f.db.collection("turn_traces").deleteMany({});
      await f.store.storeTurnTrace(traceOf("t-0", "b-1", "conv-b"));
      const batch = [traceOf("t-1", "a-1", "conv-a"), bad];
      await expectCode(f.store.storeTurnTraces(batch), "INTEGRITY");
      const stored = await f.db.collection("turn_traces").find({}).toArray();
      const ids = stored.map((d) => String(d._id)).sort();
      expect(ids, what).toEqual(atomic ? ["t-0"] : ["t-0", "t-1"]);
    }
  });

  it("a batch spanning two conversations lands in both, each in array order", async () => {
    await f.store.storeMessages([
      msg("s-1", "conv-a", 50),
      msg("s-2", "conv-b", 50),
      msg("s-3", "conv-a", 50),
      msg("s-4", "conv-b", 40),
    ]);
    const a = (await f.store.getMessagesByConversationId("conv-a")).items.map((m) => m.id);
    const b = (await f.store.getMessagesByConversationId("conv-b")).items.map((m) => m.id);
    expect(a).toEqual(["a-1", "a-2", "s-1", "s-3"]);
    expect(b).toEqual(["b-1", "s-4", "s-2"]);
    expect((await f.store.getConversation("conv-b"))?.lastActivityAt).toBe(T0 + 50);
  });
});
