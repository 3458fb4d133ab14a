import { ConnectionError, OutcomeUnknownError } from "@message-store/core";
import { TcpProxy } from "@message-store/test-servers";
import { MongoClient } from "mongodb";
import { afterEach, describe, expect, it } from "vitest";
import { MongoMessageStore } from "../src/index.js";
import { conv, msg, serverUri, uniqueDbName } from "./helpers.js";

/** Margin for a busy machine, over the configured bound. */
const SLACK_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

/**
 * The standalone server behind a proxy that can partition it away. (A replica set member would
 * tell the driver its real address, and the driver would go around the proxy.)
 */
async function proxied(): Promise<{ proxy: TcpProxy; uri: URL }> {
  const target = new URL(serverUri(true));
  const proxy = await TcpProxy.start(target.hostname, Number(target.port));
  cleanup.push(() => proxy.close());
  const uri = new URL(proxy.url(serverUri(true)));
  uri.searchParams.set("serverMonitoringMode", "poll");
  return { proxy, uri };
}

/** A store whose client reaches the server through a proxy that can partition it away. */
async function partitionable(operation_timeout_ms: number) {
  const { proxy, uri } = await proxied();
  const store = await MongoMessageStore.open({
    uri: uri.toString(),
    db: uniqueDbName(),
    server_selection_timeout_ms: 10_000,
    operation_timeout_ms,
  });
  cleanup.push(() => store.close());
  return { store, proxy };
}

async function timed(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

describe("operation_timeout_ms bounds every call", () => {
  it("reads and writes to a partitioned server reject with ConnectionError after operation_timeout_ms, then the store recovers", async () => {
    const { store, proxy } = await partitionable(1_500);
    await store.storeConversation(conv("c1"));
    proxy.partition();
    const calls = await Promise.all([
      timed(store.getConversation("c1")),
      timed(store.storeMessage(msg("m1", "c1", 1))),
      timed(store.getMessagesByConversationId("c1")),
    ]);
    for (const [i, { error, ms }] of calls.entries()) {
      expect(error, `call ${i}`).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(
        /MongoDB did not complete the call within operation_timeout_ms \(1500 ms\)/,
      );
      expect(ms, `call ${i}`).toBeGreaterThanOrEqual(1_450);
      expect(ms, `call ${i}`).toBeLessThan(1_500 + SLACK_MS);
    }
    // The write was sent: the store cannot know whether it was applied, and says so.
    expect(calls[1]!.error).toBeInstanceOf(OutcomeUnknownError);
    expect((calls[1]!.error as Error).message).toMatch(
      /the write may have been stored or not, and retrying it is safe/,
    );
    expect(calls[0]!.error).not.toBeInstanceOf(OutcomeUnknownError);
    expect(calls[2]!.error).not.toBeInstanceOf(OutcomeUnknownError);
    // close() does not wait for the partitioned server either.
    const closing = timed(store.close());
    proxy.heal();
    expect((await closing).ms).toBeLessThan(SLACK_MS);
  });

  it("the bound is the store's, so it also holds on a caller's client", async () => {
    const { proxy, uri } = await proxied();
    const client = new MongoClient(uri.toString());
    cleanup.push(() => client.close());
    const store = await MongoMessageStore.open({
      client,
      db: uniqueDbName(),
      operation_timeout_ms: 1_000,
    });
    await store.storeConversation(conv("c1"));
    proxy.partition();
    const { error, ms } = await timed(store.getConversation("c1"));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(ms).toBeLessThan(1_000 + SLACK_MS);
    proxy.heal();
    await sleep(100);
    // Healed: the same store serves calls again.
    const deadline = Date.now() + 20_000;
    while ((await store.getConversation("c1").catch(() => null)) === null) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(200);
    }
    await store.close();
  });
});
