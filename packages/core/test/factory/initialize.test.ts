import { describe, expect, it } from "vitest";
import { registerStorage } from "../../src/adapter.js";
import { ConfigurationError, ConnectionError, MessageStore } from "../../src/index.js";
import { recordingStore } from "../support/recording-driver.js";

// In these tests `storage` names are not in `StorageConfigMap` (no adapter package is imported),
// so configs are passed untyped, as JavaScript callers would.
const initialize = (config: unknown) => MessageStore.initialize(config as never);
const DSN = "postgres://app:hunter2@db:5432/x";

async function configError(config: unknown): Promise<ConfigurationError> {
  const error = await initialize(config).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigurationError);
  expect((error as ConfigurationError).code).toBe("CONFIGURATION");
  expect((error as Error).message).not.toContain("hunter2");
  return error as ConfigurationError;
}

describe("MessageStore.initialize: the config's shape", () => {
  it.each([
    ["not an object", "postgres"],
    ["null", null],
    ["no storage", { dsn: DSN }],
    ["numeric storage", { storage: 5 }],
  ])("rejects %s before anything else", async (_, config) => {
    const error = await configError(config);
    expect(error.message).toMatch(/"storage" key/);
  });
});

describe("MessageStore.initialize: an unknown storage", () => {
  it("names both causes (not installed; not imported in a bundle) and the registered names", async () => {
    registerStorage({ name: "memory-listed", open: async () => recordingStore() });
    const error = await configError({ storage: "sqlite-nope" });
    expect(error.message).toContain('unknown storage "sqlite-nope"');
    expect(error.message).toContain("npm install @message-store/sqlite-nope");
    expect(error.message).toContain('import "@message-store/sqlite-nope"');
    expect(error.message).toMatch(/registered: [^)]*memory-listed/);
  });

  it.each([
    ["postgress", "postgres"],
    ["Postgres", "postgres"],
    ["mongo", "mongodb"],
    ["jsno", "json"],
  ])(
    "answers the typo %s with the built-in name %s, not a package to install",
    async (typo, name) => {
      const error = await configError({ storage: typo });
      expect(error.message).toContain(`unknown storage "${typo}"`);
      expect(error.message).toContain(`Did you mean "${name}"?`);
      expect(error.message).toContain(`npm install @message-store/${name}`);
      expect(error.message).not.toMatch(new RegExp(`@message-store/${typo}\\b(?!-)`));
    },
  );

  it("answers a typo of a registered name with it, with nothing to install", async () => {
    registerStorage({ name: "acme-vault", open: async () => recordingStore() });
    const error = await configError({ storage: "acme-valut" });
    expect(error.message).toContain('Did you mean "acme-vault"?');
    expect(error.message).not.toContain("npm install");
  });

  it("names no package for a name that cannot be one", async () => {
    const error = await configError({ storage: "Not A Package" });
    expect(error.message).not.toContain("npm install");
    expect(error.message).toContain("Import the adapter package");
  });
});

describe("registerStorage", () => {
  it("makes initialize call open with the whole config and resolve to its store", async () => {
    const seen: unknown[] = [];
    const store = recordingStore();
    registerStorage({
      name: "memory-a",
      open: async (config) => {
        seen.push(config);
        return store;
      },
    });
    const config = { storage: "memory-a", anything: { goes: true } };
    await expect(initialize(config)).resolves.toBe(store);
    expect(seen).toEqual([config]);
  });

  it("replaces an earlier registration of the same name", async () => {
    const first = recordingStore();
    const second = recordingStore();
    registerStorage({ name: "memory-b", open: async () => first });
    registerStorage({ name: "memory-b", open: async () => second });
    await expect(initialize({ storage: "memory-b" })).resolves.toBe(second);
  });

  it("keeps its registry on globalThis under a registered symbol (one per process)", () => {
    registerStorage({ name: "memory-c", open: async () => recordingStore() });
    const registry = (globalThis as Record<symbol, unknown>)[
      Symbol.for("@message-store/core/storage-registry@1")
    ] as Map<string, unknown>;
    expect(registry.has("memory-c")).toBe(true);
  });

  it("rejects an empty name or a missing open", () => {
    expect(() => registerStorage({ name: "", open: async () => recordingStore() })).toThrow(
      ConfigurationError,
    );
    expect(() => registerStorage({ name: "x", open: "open" as never })).toThrow(ConfigurationError);
  });

  it("wraps a plain error from open in a ConfigurationError without the password", async () => {
    registerStorage({
      name: "memory-throws",
      open: async () => {
        throw new Error(`connect failed for ${DSN}`);
      },
    });
    const error = await configError({ storage: "memory-throws" });
    expect(error.message).toBe(
      "[message-store] [memory-throws] could not open the memory-throws store: connect failed for postgres://app:***@db:5432/x",
    );
    const cause = error.cause as Error;
    expect(cause.message).not.toContain("hunter2");
    expect(cause.stack).not.toContain("hunter2");
  });

  it("passes a message-store error from open through unchanged", async () => {
    registerStorage({
      name: "memory-down",
      open: async () => {
        throw new ConnectionError("unreachable", { adapter: "memory-down" });
      },
    });
    const error = await initialize({ storage: "memory-down" }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe("[message-store] [memory-down] unreachable");
  });
});
