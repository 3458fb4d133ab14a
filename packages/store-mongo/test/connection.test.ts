import { createServer } from "node:net";
import { isMessageStoreError, MessageStore } from "@message-store/core";
import { startJongodb } from "@message-store/test-servers";
import { MongoClient } from "mongodb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MongoConfigSchema, MongoMessageStore, type MongoStoreConfig } from "../src/index.js";
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
    const config = { uri, db: "x", server_selection_timeout_ms: 300 };
    const configs = [
      () => MongoMessageStore.open(config),
      () => MongoMessageStore.open({ storage: "mongodb", ...config }),
      // Through core's factory: the adapter registered itself when src/index.ts was imported.
      () => MessageStore.initialize({ storage: "mongodb", ...config }),
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

  it("honours the uri's serverSelectionTimeoutMS (option names in any case)", async () => {
    const port = await closedPort();
    for (const option of ["serverSelectionTimeoutMS=300", "serverselectiontimeoutms=300"]) {
      const started = Date.now();
      const error = await MongoMessageStore.open({
        uri: `mongodb://127.0.0.1:${port}/x?${option}`,
        db: "x",
      }).catch((e: unknown) => e);
      // The default (10 s) would apply if the uri's option were overridden.
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(isMessageStoreError(error) && error.code).toBe("CONNECTION");
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
  it("rejects a bad config before any I/O, naming every problem, with passwords redacted", async () => {
    const client = new MongoClient("mongodb://127.0.0.1:1");
    const cases: [Record<string, unknown>, string][] = [
      [{ db: "x" }, "give exactly one of uri or client"],
      [{ uri: "mongodb://127.0.0.1:1", client, db: "x" }, "give exactly one of uri or client"],
      [{ uri: "mongodb://h", db: "x", extra: 1 }, 'unknown key "extra"'],
      [{ uri: undefined, db: "x" }, "uri is undefined (given with no value"],
      [
        { uri: "mongodb://h", db: "x", operationTimeoutMs: 5 },
        '(did you mean "operation_timeout_ms"?)',
      ],
      [{ uri: `http://u:${SECRET}@h/x`, db: "x" }, "uri: uri must start with mongodb://"],
      [{ uri: "mongodb://127.0.0.1:1", db: "a.b" }, "db: db name may not contain"],
      [{ uri: "mongodb://127.0.0.1:1", db: "" }, "db: "],
      [{ uri: "mongodb://127.0.0.1:1", db: "x".repeat(64) }, "db: "],
      [{ client: { db: 1 }, db: "x" }, "client: client must be a MongoClient"],
      [
        { uri: "mongodb://h", db: "x", server_selection_timeout_ms: 0 },
        "server_selection_timeout_ms: ",
      ],
      [
        {
          uri: "mongodb://h1,h2/x?replicaSet=rs&serverSelectionTimeoutMS=500",
          db: "x",
          server_selection_timeout_ms: 2_000,
        },
        "serverSelectionTimeoutMS differ",
      ],
      [{ storage: "postgres", uri: "mongodb://h", db: "x" }, 'config for storage "postgres"'],
      // Valid scheme, but the driver's parser refuses it (and repeats the URI): no password.
      [{ uri: `mongodb://u:${SECRET}@/x`, db: "x" }, "invalid mongodb uri"],
    ];
    for (const [config, problem] of cases) {
      const opens: (() => Promise<MessageStore>)[] = [
        () => MongoMessageStore.open(config as MongoStoreConfig),
      ];
      if (!("storage" in config)) {
        opens.push(() => MessageStore.initialize({ storage: "mongodb", ...config } as never));
      }
      for (const open of opens) {
        const error = await open().catch((e: unknown) => e);
        expect(isMessageStoreError(error) && error.code).toBe("CONFIGURATION");
        expect((error as Error).message).toMatch(/^\[message-store\] \[mongodb\] /);
        expect((error as Error).message).toContain(problem);
        expect(everything(error)).not.toContain(SECRET);
      }
    }
    await client.close();
  });

  it("fills the documented defaults", () => {
    expect(MongoConfigSchema.parse({ uri: "mongodb://h", db: "x" })).toEqual({
      uri: "mongodb://h",
      db: "x",
      operation_timeout_ms: 30_000,
      create: true,
    });
    expect(MongoConfigSchema.safeParse({ uri: "mongodb+srv://h.example/x", db: "x" }).success).toBe(
      true,
    );
  });

  it("importing the package registers it: initialize opens a MongoMessageStore and types its config", async () => {
    // By package name, as an application imports it (the built entry point).
    const entry = (await import("@message-store/mongodb")) as Record<string, unknown>;
    expect(entry).not.toHaveProperty("createMessageStore");
    const store = await MessageStore.initialize({
      storage: "mongodb",
      uri: serverUri(),
      db: uniqueDbName(),
    });
    expect(store).toBeInstanceOf(MessageStore);
    expect((store as MessageStore).driver).toBeInstanceOf(entry.MongoDriver as Function);
    expect(store.adapterName).toBe("mongodb");
    expect(store.capabilities.semanticSearch).toBe(false);
    expect(await store.storeConversation(conv("c"))).toMatchObject({ id: "c" });
    await store.close();
    const misspelt = MessageStore.initialize({
      storage: "mongodb",
      // @ts-expect-error: the config is typed once the adapter is imported
      url: serverUri(),
      db: "x",
    });
    const error = await misspelt.catch((e: unknown) => e);
    expect(isMessageStoreError(error) && error.code).toBe("CONFIGURATION");
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
