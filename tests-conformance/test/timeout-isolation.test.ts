import { setTimeout as sleep } from "node:timers/promises";
import { MessageStore } from "@message-store/core";
import { MemoryDriver, MemoryState } from "@message-store/core/memory";
import { describe, expect, it } from "vitest";
import { createHarness } from "../src/harness.js";
import { runModelCheck } from "../src/model/run-model-check.js";

/**
 * A case that times out fails alone: its body keeps running after vitest gave up on it, and must
 * not reach the stores of the cases after it (no write into them, no close, no reset). One shared
 * storage (a memory state every open reaches, as a database would be) makes a leak visible.
 */
describe("a timed-out case fails alone", () => {
  let storage = new MemoryState();
  const h = createHarness({
    name: "shared memory",
    open: async () => new MessageStore(new MemoryDriver({ state: storage })),
    reset: async () => {
      storage = new MemoryState();
    },
  });
  /** What the timed-out body saw after its end, written by it. */
  const stale: string[] = [];

  it.fails("a case that times out (its body keeps writing, reopening and resetting)", {
    timeout: 300,
  }, async () => {
    for (let i = 0; i < 40; i++) {
      try {
        await h.store.storeConversation({ id: `stale-${i}`, userId: "stale" });
        if (i % 5 === 4) await h.fresh();
        if (i % 7 === 6) await h.reopen();
      } catch (error) {
        stale.push((error as Error).message);
      }
      await sleep(50);
    }
  });

  it("the case after it has an empty store of its own, which nothing else writes or closes", async () => {
    const store = h.store;
    for (let i = 0; i < 20; i++) {
      await store.storeConversation({ id: `own-${i}`, userId: "own" });
      await sleep(50);
    }
    const ids = (await store.listConversations()).items.map((c) => c.id);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => `own-${i}`).sort());
    expect(h.store).toBe(store);
  });

  it("the timed-out body was stopped: its harness calls threw once its case had ended", () => {
    expect(stale.length).toBeGreaterThan(0);
    expect(
      stale.every((m) => /this test has ended|store is closed|closed/i.test(m)),
      stale.join("\n"),
    ).toBe(true);
  });

  it("the model-based check stops at its signal: the sequence running fails, no other starts", async () => {
    const controller = new AbortController();
    let freshCalls = 0;
    const started = Date.now();
    const check = runModelCheck(
      async () => {
        freshCalls++;
        if (freshCalls === 3) controller.abort();
        return h.fresh();
      },
      { numRuns: 1000, seed: 1, signal: controller.signal },
    );
    await expect(check).rejects.toThrow(/stopped/);
    expect(freshCalls).toBe(3);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("a sequence past its limit fails the check as a hang, without shrinking through more hangs", async () => {
    let calls = 0;
    const check = runModelCheck(
      async () => {
        calls++;
        if (calls === 2) await sleep(1_000);
        return h.fresh();
      },
      { numRuns: 50, seed: 1, runLimitMs: 200 },
    );
    await expect(check).rejects.toThrow(/took more than 200 ms: a step hangs/);
    expect(calls).toBe(2);
  });
});
