import { describe, expect, it } from "vitest";
import {
  ConnectionError,
  IntegrityError,
  type Message,
  type MessageStoreError,
  StorageError,
} from "../src/index.js";
import { MemoryMessageStore } from "./support/memory-message-store.js";

/** A store whose `getMessage` hook throws what the test tells it to. */
class ThrowingStore extends MemoryMessageStore {
  thrown: unknown = null;
  mapped: unknown[] = [];
  protected override async _getMessage(_id: string): Promise<Message | null> {
    throw this.thrown;
  }
  protected override async _close(): Promise<void> {
    throw new Error("socket hang up talking to postgres://u:hunter2@h/db");
  }
}

class MappingStore extends ThrowingStore {
  protected override mapError(error: unknown): MessageStoreError {
    this.mapped.push(error);
    return new ConnectionError("lost the backend", { cause: error });
  }
}

describe("errors thrown by hooks", () => {
  it("stamp the adapter name on core's errors raised without one", async () => {
    const store = new ThrowingStore();
    store.thrown = new IntegrityError("broken rule");
    const error = await store.getMessage("m").catch((e) => e);
    expect(error).toBe(store.thrown);
    expect(error.adapter).toBe("memory");
    expect(error.message).toBe("[message-store] [memory] broken rule");
    expect(error.stack).toContain("[message-store] [memory] broken rule");
  });

  it("leave an error that already names an adapter as it is", async () => {
    const store = new ThrowingStore();
    store.thrown = new IntegrityError("theirs", { adapter: "other" });
    const error = await store.getMessage("m").catch((e) => e);
    expect(error.message).toBe("[message-store] [other] theirs");
  });

  it("turn anything else into a StorageError by default, scrubbed of passwords", async () => {
    const store = new ThrowingStore();
    store.thrown = new TypeError("bad thing at postgres://app:hunter2@db/x");
    const error = await store.getMessage("m").catch((e) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect(error.message).toBe(
      "[message-store] [memory] unexpected error: bad thing at postgres://app:***@db/x",
    );
    expect(String(error.cause?.message) + String(error.cause?.stack)).not.toContain("hunter2");
  });

  it("go through the adapter's mapError, once, and get its name", async () => {
    const store = new MappingStore();
    const raw = new Error("ECONNRESET");
    store.thrown = raw;
    const error = await store.getMessage("m").catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe("[message-store] [memory] lost the backend");
    expect(store.mapped).toEqual([raw]);
  });

  it("include errors thrown by close", async () => {
    const store = new ThrowingStore();
    const error = await store.close().catch((e) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect(error.message).not.toContain("hunter2");
    expect(error.message).toMatch(/^\[message-store\] \[memory\] unexpected error: socket hang up/);
  });
});
