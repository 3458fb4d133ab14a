import { describe, expect, it, vi } from "vitest";
import {
  ConfigurationError,
  ConnectionError,
  MessageStore,
  registerStorage,
} from "../../src/index.js";
import { MemoryMessageStore } from "../support/memory-message-store.js";

// Stands in for the adapter package so the test can see whether, when and with what core loads
// it. (The package itself is not resolvable from core; see missing-package.test.ts.)
const adapter = vi.hoisted(() => ({
  imported: false,
  configs: [] as unknown[],
  behaviour: "open" as "open" | "throw-plain" | "throw-store-error",
}));
vi.mock("@message-store/postgres", () => {
  adapter.imported = true;
  return {
    createMessageStore: async (config: unknown) => {
      adapter.configs.push(config);
      if (adapter.behaviour === "throw-plain")
        throw new Error("connect failed for postgres://app:hunter2@db:5432/x");
      if (adapter.behaviour === "throw-store-error")
        throw new ConnectionError("unreachable", { adapter: "postgres" });
      return new MemoryMessageStore();
    },
  };
});

const DSN = "postgres://app:hunter2@db:5432/x";

async function configError(config: unknown): Promise<ConfigurationError> {
  const error = await MessageStore.initialize(config as never).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigurationError);
  expect((error as ConfigurationError).code).toBe("CONFIGURATION");
  expect((error as Error).message).not.toContain("hunter2");
  return error as ConfigurationError;
}

// Declared first on purpose: these must run before anything imports the adapter.
describe("MessageStore.initialize: configuration errors before any import or I/O", () => {
  it.each([
    ["not an object", "postgres"],
    ["null", null],
    ["no storage", { dsn: DSN }],
    ["numeric storage", { storage: 5 }],
  ])("rejects %s", async (_, config) => {
    const error = await configError(config);
    expect(error.message).toMatch(/"storage" key/);
  });

  it("rejects an unknown storage, listing the known names", async () => {
    const error = await configError({ storage: "sqlite" });
    expect(error.message).toBe(
      '[message-store] unknown storage "sqlite" (known: json, postgres, mongodb)',
    );
  });

  it.each([
    ["json without path", { storage: "json" }, /invalid json config: path/],
    ["json with a dsn", { storage: "json", path: "x", dsn: DSN }, /Unrecognized key/],
    ["postgres without dsn or pool", { storage: "postgres" }, /exactly one of dsn or pool/],
    [
      "postgres with dsn and pool",
      { storage: "postgres", dsn: DSN, pool: { query() {}, connect() {} } },
      /exactly one/,
    ],
    ["postgres numeric dsn", { storage: "postgres", dsn: 5 }, /dsn/],
    [
      "postgres pool_min > pool_max",
      { storage: "postgres", dsn: DSN, pool_min: 5, pool_max: 2 },
      /pool_min must not exceed/,
    ],
    ["postgres pool_max 0", { storage: "postgres", dsn: DSN, pool_max: 0 }, /pool_max/],
    [
      "postgres bad schema",
      { storage: "postgres", dsn: DSN, schema: "x; drop" },
      /plain SQL identifier/,
    ],
    ["postgres pool not a pool", { storage: "postgres", pool: {} }, /pg\.Pool/],
    ["postgres typo key", { storage: "postgres", dsn: DSN, poolMax: 3 }, /Unrecognized key/],
    ["mongodb without db", { storage: "mongodb", uri: "mongodb://u:hunter2@h" }, /db/],
    [
      "mongodb with uri and client",
      { storage: "mongodb", uri: "mongodb://h", db: "d", client: { db() {}, close() {} } },
      /exactly one of uri or client/,
    ],
  ])("rejects %s", async (_, config, pattern) => {
    const error = await configError(config);
    expect(error.message).toMatch(pattern);
    expect(adapter.imported).toBe(false);
    expect(adapter.configs).toEqual([]);
  });
});

describe("MessageStore.initialize: built-in adapters", () => {
  it("imports the package and passes the validated config with defaults", async () => {
    adapter.behaviour = "open";
    const store = await MessageStore.initialize({ storage: "postgres", dsn: DSN });
    expect(store).toBeInstanceOf(MemoryMessageStore);
    expect(adapter.imported).toBe(true);
    expect(adapter.configs.at(-1)).toEqual({
      storage: "postgres",
      dsn: DSN,
      pool_min: 2,
      pool_max: 10,
      connect_timeout_ms: 10_000,
    });
    await store.close();
  });

  it("wraps a plain adapter error in a ConfigurationError without the password", async () => {
    adapter.behaviour = "throw-plain";
    const error = await configError({ storage: "postgres", dsn: DSN });
    expect(error.message).toBe(
      "[message-store] could not open the postgres store: connect failed for postgres://app:***@db:5432/x",
    );
    const cause = error.cause as Error;
    expect(cause.message).not.toContain("hunter2");
    expect(cause.stack).not.toContain("hunter2");
  });

  it("passes a message-store error through unchanged", async () => {
    adapter.behaviour = "throw-store-error";
    const error = await MessageStore.initialize({ storage: "postgres", dsn: DSN }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe("[message-store] [postgres] unreachable");
  });
});

describe("registerStorage", () => {
  it("makes initialize call the factory with the config as given", async () => {
    const seen: unknown[] = [];
    registerStorage("memory-a", async (config) => {
      seen.push(config);
      return new MemoryMessageStore();
    });
    const config = { storage: "memory-a", anything: { goes: true } };
    const store = await MessageStore.initialize(config);
    expect(store).toBeInstanceOf(MemoryMessageStore);
    expect(seen).toEqual([config]);
    const error = await configError({ storage: "nope" });
    expect(error.message).toContain("known: json, postgres, mongodb, memory-a");
  });

  it("takes precedence over a built-in name", async () => {
    const store = new MemoryMessageStore();
    registerStorage("mongodb", async () => store);
    await expect(MessageStore.initialize({ storage: "mongodb" })).resolves.toBe(store);
  });

  it("rejects an empty name or a non-function factory", () => {
    expect(() => registerStorage("", async () => new MemoryMessageStore())).toThrow(
      ConfigurationError,
    );
    expect(() => registerStorage("x", "factory" as never)).toThrow(ConfigurationError);
  });
});
