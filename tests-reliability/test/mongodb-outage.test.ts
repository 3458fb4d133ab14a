import { type MessageStore, MessageStore as Store } from "@message-store/core";
import { type MongoServer, startJongodb } from "@message-store/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezeListener, settleWithin } from "./support/freeze.js";
import { conversation, message } from "./support/messages.js";
import { jongodbUri, uniqueDbName } from "./support/mongo.js";
import { checkOutageCalls, codeOf, describeError, Workload } from "./support/workload.js";

const SETTLE_BOUND_MS = 15_000;
/** `operation_timeout_ms` of the frozen-server tests. */
const FROZEN_TIMEOUT_MS = 5_000;
/** Margin over a configured bound for timers on a busy 2-core machine. */
const SLACK_MS = 3_000;
const RECOVERY_BOUND_MS = 20_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: MongoServer;

beforeAll(async () => {
  server = await startJongodb();
});
afterAll(async () => {
  await server?.stop();
});

describe("mongodb outage", () => {
  it("server killed mid-workload: ConnectionError in bounded time, then the same store recovers after the restart", async () => {
    const store: MessageStore = await Store.initialize({
      storage: "mongodb",
      uri: jongodbUri(server.uri),
      db: uniqueDbName("outage"),
      server_selection_timeout_ms: 3_000,
    });
    try {
      const conversations = ["mo-c1", "mo-c2", "mo-c3"];
      for (const c of conversations) await store.storeConversation(conversation(c));
      // Single-message writes only: jongodb loses writes that run concurrently with a transaction
      // (a multi-message batch), which would break the read-back check; the batch path is
      // covered on its own below.
      const workload = new Workload(store, conversations, {
        workers: 8,
        prefix: "mo-",
        checkReads: true,
        batches: false,
      });
      workload.start();
      await sleep(1_500);
      const downAt = Date.now();
      await server.kill();
      const inFlight = workload.inFlightAt(downAt);
      await sleep(4_000);
      // jongodb keeps data in memory only: stop the workload before the restart, whose empty
      // database would make its writes fail with IntegrityError (missing conversation).
      await workload.stop();

      checkOutageCalls(workload, downAt, SETTLE_BOUND_MS);
      const failed = workload.calls.filter((c) => !c.ok && c.start >= downAt);
      expect(failed.length, "no call failed during the outage").toBeGreaterThan(0);
      const okBefore = workload.calls.filter((c) => c.ok && c.end! < downAt).length;
      expect(okBefore, "the workload did nothing before the kill").toBeGreaterThan(20);

      // Restart. The same instance reconnects by itself; until it has, calls fail with ConnectionError.
      const restartAt = Date.now();
      await server.start();
      const recoveryErrors: string[] = [];
      for (;;) {
        const r = await store.storeConversation(conversation("mo-c1")).then(
          () => null,
          (e: unknown) => codeOf(e),
        );
        if (r === null) break;
        recoveryErrors.push(r);
        expect(Date.now() - restartAt, `not recovered: ${recoveryErrors.join(", ")}`).toBeLessThan(
          RECOVERY_BOUND_MS,
        );
        await sleep(200);
      }
      const recoveredAt = Date.now();
      expect(new Set(recoveryErrors), "errors while reconnecting").toEqual(
        new Set(recoveryErrors.length ? ["CONNECTION"] : []),
      );
      // Recovered: writes and reads succeed first time.
      const writes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          store.storeMessage(message(`mo-after-${i}`, "mo-c1", 90_000 + i)),
        ),
      );
      expect(
        writes
          .filter((w) => w.status === "rejected")
          .map((w) => codeOf((w as PromiseRejectedResult).reason)),
      ).toEqual([]);
      const transcript = await store.getMessagesByConversationId("mo-c1");
      expect(transcript.items.map((m) => m.id)).toEqual(
        Array.from({ length: 40 }, (_, i) => `mo-after-${i}`),
      );
      console.info(
        `mongodb outage: ${workload.calls.length} calls, ${inFlight.length} in flight at the kill ` +
          `(slowest settled ${Math.max(...inFlight.map((c) => c.end! - downAt))} ms after it), ` +
          `${failed.length} ConnectionErrors during it, ${okBefore} ok before; recovered ${recoveredAt - restartAt} ms ` +
          `after the restart began (${recoveryErrors.length} ConnectionErrors meanwhile)`,
      );
    } finally {
      await store.close();
    }
  });

  it("server frozen (SIGSTOP, like a network partition): every call rejects with ConnectionError within operation_timeout_ms, then the store recovers", async () => {
    const store = await Store.initialize({
      storage: "mongodb",
      uri: jongodbUri(server.uri),
      db: uniqueDbName("frozen"),
      server_selection_timeout_ms: 3_000,
      operation_timeout_ms: FROZEN_TIMEOUT_MS,
    });
    try {
      await store.storeConversation(conversation("mf-c1"));
      await Promise.all(Array.from({ length: 6 }, () => store.getConversation("mf-c1")));
      const thaw = freezeListener(server.port);
      let outcomes: { outcome: Awaited<ReturnType<typeof settleWithin<unknown>>>; ms: number }[];
      try {
        // Calls already waiting when it froze, and calls made while it stays frozen.
        const call = async (i: number) => {
          const started = Date.now();
          const outcome = await settleWithin(
            i % 2
              ? store.getConversation("mf-c1").then((): unknown => null)
              : store
                  .storeMessage(message(`mf-m${i}`, "mf-c1", 1_000 + i))
                  .then((): unknown => null),
            FROZEN_TIMEOUT_MS + 20_000,
          );
          return { outcome, ms: Date.now() - started };
        };
        const first = Array.from({ length: 6 }, (_, i) => call(i));
        await sleep(2_000);
        const later = Array.from({ length: 4 }, (_, i) => call(6 + i));
        outcomes = await Promise.all([...first, ...later]);
      } finally {
        thaw();
      }
      const summary = outcomes.map(({ outcome: o }) =>
        o === "HUNG" ? "HUNG" : o.ok ? "ok" : codeOf(o.error),
      );
      const times = outcomes.map((o) => o.ms);
      console.info(`mongodb frozen: ${summary.join(", ")} after ${times.join(", ")} ms`);
      // Reads reject with ConnectionError; a write with OutcomeUnknownError once
      // operation_timeout_ms passed after it was sent, or with ConnectionError when the driver
      // gave up selecting a server first (nothing sent).
      const writes = summary.filter((_, i) => i % 2 === 0);
      const reads = summary.filter((_, i) => i % 2 === 1);
      expect(reads, "reads to a frozen server must reject with ConnectionError, not hang").toEqual(
        Array(5).fill("CONNECTION"),
      );
      for (const code of writes) expect(["OUTCOME_UNKNOWN", "CONNECTION"]).toContain(code);
      expect(writes.filter((code) => code === "OUTCOME_UNKNOWN").length).toBeGreaterThan(0);
      // Each call measured on its own, against the configured bound (not the wall time of the test).
      for (const ms of times) expect(ms).toBeLessThan(FROZEN_TIMEOUT_MS + SLACK_MS);
      // Thawed: the same store works again (the data survived: the process was only paused).
      const deadline = Date.now() + RECOVERY_BOUND_MS;
      for (;;) {
        const ok = await store.storeMessage(message("mf-after", "mf-c1", 9_000)).then(
          () => true,
          (e: unknown) => {
            expect(["CONNECTION", "OUTCOME_UNKNOWN"]).toContain(codeOf(e));
            return false;
          },
        );
        if (ok) break;
        expect(Date.now(), "the store did not recover after the thaw").toBeLessThan(deadline);
        await sleep(200);
      }
      expect((await store.getConversation("mf-c1"))?.id).toBe("mf-c1");
    } finally {
      await store.close();
    }
  });

  it("close() while the server is frozen resolves within operation_timeout_ms (calls in flight) and a moment", async () => {
    const store = await Store.initialize({
      storage: "mongodb",
      uri: jongodbUri(server.uri),
      db: uniqueDbName("frozenclose"),
      server_selection_timeout_ms: 3_000,
      operation_timeout_ms: FROZEN_TIMEOUT_MS,
    });
    await store.storeConversation(conversation("mfc-c1"));
    const thaw = freezeListener(server.port);
    let closeMs: number;
    try {
      const inFlight = store.storeMessage(message("mfc-m1", "mfc-c1", 1)).catch(() => null);
      await sleep(100);
      const started = Date.now();
      const closed = await settleWithin(store.close(), FROZEN_TIMEOUT_MS + 30_000);
      closeMs = Date.now() - started;
      expect(closed !== "HUNG" && closed.ok, "close() rejected or hung").toBe(true);
      await inFlight;
    } finally {
      thaw();
    }
    console.info(`mongodb close() while frozen: ${closeMs} ms`);
    expect(closeMs).toBeLessThan(FROZEN_TIMEOUT_MS + SLACK_MS);
  });

  it("a multi-message batch (a transaction) in flight when the server is killed rejects with ConnectionError", async () => {
    const store = await Store.initialize({
      storage: "mongodb",
      uri: jongodbUri(server.uri),
      db: uniqueDbName("batch"),
      server_selection_timeout_ms: 3_000,
    });
    try {
      await store.storeConversation(conversation("mb-c1"));
      const batch = Array.from({ length: 5_000 }, (_, i) => message(`mb-${i}`, "mb-c1", 1_000 + i));
      const write = settleWithin(store.storeMessages(batch), SETTLE_BOUND_MS + 5_000);
      await sleep(150);
      const killedAt = Date.now();
      await server.kill();
      const outcome = await write;
      const result = outcome === "HUNG" ? "HUNG" : outcome.ok ? "resolved" : codeOf(outcome.error);
      console.info(`mongodb batch killed: ${result} after ${Date.now() - killedAt} ms`);
      expect(result, "the batch finished before the kill; make it bigger").not.toBe("resolved");
      expect(result, outcome !== "HUNG" && !outcome.ok ? describeError(outcome.error) : "").toBe(
        "CONNECTION",
      );
    } finally {
      await server.start();
      await store.close();
    }
  });
});
