import { realpathSync } from "node:fs";
import { join } from "node:path";
import {
  ConfigurationError,
  IntegrityError,
  MessageStore,
  StorageError,
  StoreClosedError,
} from "@message-store/core";
import { describe, expect, it } from "vitest";
import { JsonDriver, JsonMessageStore } from "../src/index.js";
import { message, tempDir } from "./helpers.js";

// The public API end to end (ordering, context, lists, integrity, cascade, erasure, traces,
// usage, search, copies, close) is the conformance suite's: see conformance.test.ts. What
// follows is what the suite cannot provoke.

describe("configuration", () => {
  it("validates with the package's JsonConfigSchema and throws ConfigurationError", async () => {
    await expect(JsonMessageStore.open({ path: "" })).rejects.toBeInstanceOf(ConfigurationError);
    await expect(
      JsonMessageStore.open({ storage: "json", path: 5 } as unknown as { path: string }),
    ).rejects.toThrow(/^\[message-store\] \[json\] invalid json config: path: /);
    await expect(
      JsonMessageStore.open({ path: ":memory:", compact_threshold_bytes: 0 }),
    ).rejects.toThrow(/compact_threshold_bytes/);
    await expect(
      JsonMessageStore.open({ path: ":memory:", typo: 1 } as unknown as { path: string }),
    ).rejects.toThrow(/typo/);
    await expect(
      JsonMessageStore.open({ storage: "postgres", path: ":memory:" } as unknown as {
        path: string;
      }),
    ).rejects.toBeInstanceOf(ConfigurationError);
  });

  it("registers on import: MessageStore.initialize opens a store over a JsonDriver", async () => {
    const dir = tempDir();
    const store = await MessageStore.initialize({
      storage: "json",
      path: join(dir, "db.json"),
      compact_threshold_bytes: 1024,
    });
    expect(store.driver).toBeInstanceOf(JsonDriver);
    expect(store.adapterName).toBe("json");
    expect(store.capabilities.semanticSearch).toBe(true);
    expect((store as JsonMessageStore).driver.path).toBe(join(realpathSync(dir), "db.json"));
    await store.close();
  });
});

describe("errors", () => {
  it("names the adapter once on errors thrown inside and outside the driver's operations", async () => {
    const store = await JsonMessageStore.open({ path: join(tempDir(), "db.json") });
    const integrity = (await store
      .storeMessage(message("m1", "missing", 1))
      .catch((e: unknown) => e)) as IntegrityError;
    expect(integrity).toBeInstanceOf(IntegrityError);
    expect(integrity.adapter).toBe("json");
    expect(integrity.message).toBe(
      '[message-store] [json] message "m1": conversation "missing" does not exist',
    );
    await store.close();
    await expect(store.driver.compact()).rejects.toThrow(
      /^\[message-store\] \[json\] the store is closed$/,
    );
    await expect(store.driver.compact()).rejects.toBeInstanceOf(StoreClosedError);
  });

  it("maps a file-system error no call site wrapped to a StorageError naming call, file and code", async () => {
    const store = await JsonMessageStore.open({ path: ":memory:" });
    const mapError = (e: unknown) => store.driver.mapError(e);
    const fsError = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      syscall: "write",
      path: "/data/db.json.journal",
    });
    const mapped = mapError(fsError)!;
    expect(mapped).toBeInstanceOf(StorageError);
    expect(mapped.message).toBe(
      "[message-store] [json] could not write /data/db.json.journal: ENOSPC (disk full)",
    );
    expect(mapped.cause).toBe(fsError);
    // Anything else is core's to turn into a StorageError ("unexpected error: …").
    expect(mapError(new TypeError("boom"))).toBeUndefined();
    await store.close();
  });
});
