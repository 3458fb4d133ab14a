import { createServer } from "node:net";
import { isMessageStoreError, MongoConfigSchema } from "@message-store/core";
import { startJongodb } from "@message-store/test-servers";
import { MongoClient } from "mongodb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMessageStore, MongoMessageStore } from "../src/index.js";
import { conv, msg, serverUri, uniqueDbName } from "./helpers.js";

const SECRET = "s3cret-pw";

/** A port that was free a moment ago and has nothing listening on it. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Everything an error carries that could end up in a log. */
function everything(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof Error) parts.push(e.message, e.stack ?? "", String(e));
    else parts.push(String(e));
    e = (e as { cause?: unknown }).cause;
  }
  parts.push(JSON.stringify(error, Object.getOwnPropertyNames(error ?? {})));
  return parts.join("\n");
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("connection failures", () => {
  it("an unreachable server is a ConnectionError within the selection timeout, without the password", async () => {
    const uri = `mongodb://app:${SECRET}@127.0.0.1:${await closedPort()}/x`;
    const config = { storage: "mongodb", uri, db: "x", server_selection_timeout_ms: 300 } as const;
    const configs = [
      () => createMessageStore(config),
      () => MongoMessageStore.open(config),
      // What the factory does: validate with core's schema, then call the export.
      () => createMessageStore(MongoConfigSchema.parse(config)),
    ];
    for (const open of configs) {
      const started = Date.now();
      const error = await open().catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(isMessageStoreError(error) && error.code).toBe("CONNECTION");
      expect((error as Error).message).toMatch(/^\[message-store\] \[mongodb\] /);
      expect(everything(error)).not.toContain(SECRET);
    }
  });

  it("a server lost mid-use gives ConnectionError in bounded time, and the store can still close", async () => {
    const server = await startJongodb();
    try {
      const store = await MongoMessageStore.open({
        storage: "mongodb",
        uri: server.uri,
        db: uniqueDbName(),
        server_selection_timeout_ms: 500,
      });
      await store.storeConversation(conv("c"));
      await server.kill();
      const started = Date.now();
      const error = await store.storeMessage(msg("m", "c", 1)).catch((e: unknown) => e);
      expect(isMessageStoreError(error) && error.code).toBe("CONNECTION");
      const read = await store.getConversation("c").catch((e: unknown) => e);
      expect(isMessageStoreError(read) && read.code).toBe("CONNECTION");
      expect(Date.now() - started).toBeLessThan(10_000);
      await store.close();
      const closed = await store.getConversation("c").catch((e: unknown) => e);
      expect(isMessageStoreError(closed) && closed.code).toBe("STORE_CLOSED");
    } finally {
      await server.stop();
    }
  });
});

describe("configuration", () => {
  it("rejects a bad config before any I/O, with passwords redacted", async () => {
    const cases: [unknown, RegExp][] = [
      [{ storage: "mongodb", db: "x" }, /exactly one of uri or client/],
      [{ storage: "mongodb", uri: "mongodb://h", db: "x", extra: 1 }, /extra/],
      [{ storage: "mongodb", uri: `http://u:${SECRET}@h/x`, db: "x" }, /invalid mongodb uri/],
      [{ storage: "mongodb", uri: "mongodb://127.0.0.1:1", db: "a.b" }, /db name/],
    ];
    for (const [config, message] of cases) {
      const error = await createMessageStore(config as never).catch((e: unknown) => e);
      expect(isMessageStoreError(error) && error.code).toBe("CONFIGURATION");
      expect((error as Error).message).toMatch(message);
      expect(everything(error)).not.toContain(SECRET);
    }
  });

  it("exports what core's factory calls, and opens with a factory-validated config", async () => {
    // The factory imports the package by name; this is the same resolution, from the package itself.
    const entry = (await import("@message-store/mongodb")) as Record<string, unknown>;
    expect(typeof entry.createMessageStore).toBe("function");
    const config = MongoConfigSchema.parse({
      storage: "mongodb",
      uri: serverUri(),
      db: uniqueDbName(),
    });
    const store = await createMessageStore(config);
    expect(store.adapterName).toBe("mongodb");
    expect(store.capabilities.semanticSearch).toBe(false);
    expect(await store.storeConversation(conv("c"))).toMatchObject({ id: "c" });
    await store.close();
  });
});

describe("client ownership", () => {
  it("a caller-owned client is left open by close(); an owned one is closed", async () => {
    const closeSpy = vi.spyOn(MongoClient.prototype, "close");
    const client = new MongoClient(serverUri());
    const db = uniqueDbName();
    const borrowed = await MongoMessageStore.open({ storage: "mongodb", client, db });
    await borrowed.storeConversation(conv("c"));
    await borrowed.close();
    expect(closeSpy).not.toHaveBeenCalled();
    expect(await client.db(db).collection("conversations").countDocuments()).toBe(1);

    const owned = await MongoMessageStore.open({ storage: "mongodb", uri: serverUri(), db });
    expect(await owned.getConversation("c")).not.toBeNull();
    await owned.close();
    await owned.close();
    expect(closeSpy).toHaveBeenCalledTimes(1);
    closeSpy.mockRestore();
    await client.close();
  });
});
