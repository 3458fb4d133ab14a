import { describe, expect, it } from "vitest";
import { ConnectionError, IntegrityError, StorageError } from "../src/index.js";
import { recordingStore } from "./support/recording-driver.js";

/**
 * A store whose driver's `getMessage` throws what the test tells it to, and whose `close` fails;
 * with `mapping`, the driver maps errors (recording what it was given).
 */
function throwingStore(mapping = false) {
  const box = { thrown: null as unknown, mapped: [] as unknown[] };
  const store = recordingStore({
    overrides: {
      getMessage: async () => {
        throw box.thrown;
      },
      close: async () => {
        throw new Error("socket hang up talking to postgres://u:hunter2@h/db");
      },
      ...(mapping && {
        mapError: (error: unknown) => {
          box.mapped.push(error);
          return new ConnectionError("lost the backend", { cause: error });
        },
      }),
    },
  });
  return Object.assign(box, { store });
}

describe("errors thrown by drivers", () => {
  it("stamp the adapter name on core's errors raised without one", async () => {
    const t = throwingStore();
    t.thrown = new IntegrityError("broken rule");
    const error = await t.store.getMessage("m").catch((e) => e);
    expect(error).toBe(t.thrown);
    expect(error.adapter).toBe("memory");
    expect(error.message).toBe("[message-store] [memory] broken rule");
    expect(error.stack).toContain("[message-store] [memory] broken rule");
  });

  it("leave an error that already names an adapter as it is", async () => {
    const t = throwingStore();
    t.thrown = new IntegrityError("theirs", { adapter: "other" });
    const error = await t.store.getMessage("m").catch((e) => e);
    expect(error.message).toBe("[message-store] [other] theirs");
  });

  it("turn anything else into a StorageError by default, scrubbed of passwords", async () => {
    const t = throwingStore();
    t.thrown = new TypeError("bad thing at postgres://app:hunter2@db/x");
    const error = await t.store.getMessage("m").catch((e) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect(error.message).toBe(
      "[message-store] [memory] unexpected error: bad thing at postgres://app:***@db/x",
    );
    expect(String(error.cause?.message) + String(error.cause?.stack)).not.toContain("hunter2");
  });

  it("go through the driver's mapError, once, and get its name", async () => {
    const t = throwingStore(true);
    const raw = new Error("ECONNRESET");
    t.thrown = raw;
    const error = await t.store.getMessage("m").catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe("[message-store] [memory] lost the backend");
    expect(t.mapped).toEqual([raw]);
  });

  it("include errors thrown by close", async () => {
    const { store } = throwingStore();
    const error = await store.close().catch((e) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect(error.message).not.toContain("hunter2");
    expect(error.message).toMatch(/^\[message-store\] \[memory\] unexpected error: socket hang up/);
  });
});
