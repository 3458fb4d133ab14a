import { isMessageStoreError } from "@message-store/core";
import { describe, expect, inject, it } from "vitest";
import { conv, transcript as ids, msg, openFixture, T0, traceOf } from "./helpers.js";

describe.each([
  { name: "server under test", standalone: false },
  { name: "standalone", standalone: true },
])("concurrent single-document writes: $name", ({ standalone }) => {
  it("parallel stores into one conversation get unique, receipt-ordered positions", async () => {
    const f = await openFixture({ standalone });
    await f.store.storeConversation(conv("c"));
    const ms = Array.from({ length: 60 }, (_, i) => msg(`p-${i}`, "c", i % 3));
    await Promise.all(ms.map((m) => f.store.storeMessage(m)));
    const all = await ids(f.store, "c");
    expect(new Set(all).size).toBe(60);
    expect(await ids(f.store, "c", 1)).toEqual(all);
    const raw = await f.db.collection("messages").find({ conversationId: "c" }).toArray();
    expect(new Set(raw.map((d) => d.sequence)).size).toBe(60);
    expect((await f.store.getConversation("c"))?.lastActivityAt).toBe(T0 + 2);
  });

  it("parallel upserts of one conversation and of one message leave one valid version", async () => {
    const f = await openFixture({ standalone });
    await f.store.storeConversation(conv("c", { updatedAt: T0 }));
    await f.store.storeMessage(msg("m0", "c", 50));
    const versions = Array.from({ length: 30 }, (_, i) =>
      conv("c", { title: `v${i}`, updatedAt: T0 + i * 3 }),
    );
    await Promise.all(versions.map((v) => f.store.storeConversation(v)));
    const c = await f.store.getConversation("c");
    const chosen = versions.find((v) => v.title === c?.title)!;
    expect(c?.lastActivityAt).toBe(Math.max(chosen.updatedAt!, T0 + 50));
    const edits = Array.from({ length: 30 }, (_, i) =>
      msg("m", "c", 5, { originalContent: `e${i}` }),
    );
    await Promise.all(edits.map((m) => f.store.storeMessage(m)));
    expect(await ids(f.store, "c")).toEqual(["m", "m0"]);
  });

  it("parallel traces for one message: exactly one wins", async () => {
    const f = await openFixture({ standalone });
    await f.store.storeConversation(conv("c"));
    await f.store.storeMessage(msg("m", "c", 1, { role: "assistant" }));
    const settled = await Promise.allSettled(
      Array.from({ length: 15 }, (_, i) => f.store.storeTurnTrace(traceOf(`t-${i}`, "m", "c"))),
    );
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    for (const s of settled) {
      if (s.status === "rejected")
        expect(isMessageStoreError(s.reason) && s.reason.code).toBe("INTEGRITY");
    }
  });
});

/**
 * Concurrent batches and deletes. With transactions these need a server that detects write
 * conflicts and commits concurrent transactions without losing writes; jongodb does neither (see
 * the README), so on the default replica set server they run only against a real `mongod`
 * (`MESSAGE_STORE_MONGODB_URL`). The standalone server exercises the transaction-less paths.
 */
describe.each([
  { name: "standalone", standalone: true, run: true },
  {
    name: "real server (MESSAGE_STORE_MONGODB_URL)",
    standalone: false,
    run: inject("externalMongo"),
  },
])("concurrent batches and deletes: $name", ({ standalone, run }) => {
  it.runIf(run)(
    "parallel batches into one conversation all land, each in array order",
    async () => {
      const f = await openFixture({ standalone });
      await f.store.storeConversation(conv("c"));
      const batches = Array.from({ length: 10 }, (_, b) =>
        Array.from({ length: 10 }, (_, i) => msg(`b${b}-${9 - i}`, "c", 0)),
      );
      await Promise.all(batches.map((batch) => f.store.storeMessages(batch)));
      const order = await ids(f.store, "c");
      expect(order).toHaveLength(100);
      for (const batch of batches) {
        const ids = batch.map((m) => m.id);
        expect(order.filter((id) => ids.includes(id))).toEqual(ids);
      }
    },
  );

  it.runIf(run)("parallel deletes of one conversation: exactly one resolves true", async () => {
    const f = await openFixture({ standalone });
    await f.store.storeConversation(conv("c"));
    await f.store.storeMessages(Array.from({ length: 10 }, (_, i) => msg(`m-${i}`, "c", i)));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => f.store.deleteConversation("c")),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await ids(f.store, "c")).toEqual([]);
  });
});
