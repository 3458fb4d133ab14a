import { describe, expect, it } from "vitest";
import {
  ConfigurationError,
  ConnectionError,
  CorruptDataError,
  IntegrityError,
  isMessageStoreError,
  MessageStoreError,
  NotFoundError,
  OutcomeUnknownError,
  StorageError,
  StoreClosedError,
  StoreLockedError,
  UnsupportedOperationError,
  ValidationError,
} from "../src/index.js";

const opts = { adapter: "postgres" };

describe("error classes", () => {
  it.each([
    [new ValidationError("m", [], opts), "VALIDATION", "ValidationError"],
    [new IntegrityError("m", opts), "INTEGRITY", "IntegrityError"],
    [new NotFoundError("m", opts), "NOT_FOUND", "NotFoundError"],
    [new ConnectionError("m", opts), "CONNECTION", "ConnectionError"],
    [new OutcomeUnknownError("m", opts), "OUTCOME_UNKNOWN", "OutcomeUnknownError"],
    [new CorruptDataError("m", "file.json:3", opts), "CORRUPT_DATA", "CorruptDataError"],
    [new StoreClosedError(opts), "STORE_CLOSED", "StoreClosedError"],
    [new StoreLockedError("m", opts), "STORE_LOCKED", "StoreLockedError"],
    [new ConfigurationError("m", opts), "CONFIGURATION", "ConfigurationError"],
    [new StorageError("m", opts), "STORAGE", "StorageError"],
    [new UnsupportedOperationError("m", opts), "UNSUPPORTED", "UnsupportedOperationError"],
  ])("%s has code %s, name, adapter prefix and brand", (error, code, name) => {
    expect(error).toBeInstanceOf(MessageStoreError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error.adapter).toBe("postgres");
    expect(error.message).toMatch(/^\[message-store\] \[postgres\] /);
    expect(isMessageStoreError(error)).toBe(true);
  });

  it("uses the short prefix without an adapter and keeps the details", () => {
    expect(new IntegrityError("boom").message).toBe("[message-store] boom");
    expect(new StoreClosedError().message).toBe("[message-store] the store is closed");
    expect(new CorruptDataError("bad row", "messages#7").location).toBe("messages#7");
    const issues = [{ path: ["a", 0], message: "x" }];
    expect(new ValidationError("v", issues).issues).toEqual(issues);
    expect(new ValidationError("v").issues).toEqual([]);
  });

  it("keeps the cause (and no cause property when none is given)", () => {
    const cause = new Error("driver");
    expect(new StorageError("disk", { cause }).cause).toBe(cause);
    expect("cause" in new StorageError("disk")).toBe(false);
  });
});

describe("OutcomeUnknownError", () => {
  it("is a ConnectionError with its own code, and says the write may be stored and a retry is safe", () => {
    const error = new OutcomeUnknownError("the connection was lost", opts);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.code).toBe("OUTCOME_UNKNOWN");
    expect(error.message).toMatch(
      /the connection was lost; the write may have been stored or not, and retrying it is safe/,
    );
    // A plain ConnectionError is not one, and the check works by brand across copies of core.
    expect(new ConnectionError("m")).not.toBeInstanceOf(OutcomeUnknownError);
    const foreign = Object.assign(new Error("x"), { code: "OUTCOME_UNKNOWN" });
    Object.defineProperty(foreign, Symbol.for("@message-store/core/MessageStoreError"), {
      value: true,
    });
    expect(foreign).toBeInstanceOf(OutcomeUnknownError);
    expect(foreign).toBeInstanceOf(ConnectionError);
    expect(foreign).not.toBeInstanceOf(StorageError);
  });

  it("scrubs passwords as ConnectionError does", () => {
    const error = new OutcomeUnknownError("lost postgres://u:hunter2@h/db");
    expect(error.message).not.toMatch(/hunter2/);
  });
});

describe("isMessageStoreError", () => {
  it("recognises an error from another copy of core by its Symbol.for brand, as instanceof does", () => {
    class ForeignError extends Error {
      readonly code = "INTEGRITY";
      constructor() {
        super("[message-store] from another copy");
        Object.defineProperty(this, Symbol.for("@message-store/core/MessageStoreError"), {
          value: true,
        });
      }
    }
    const foreign = new ForeignError();
    expect(foreign instanceof MessageStoreError).toBe(true);
    expect(isMessageStoreError(foreign)).toBe(true);
  });

  it("rejects look-alikes without the brand", () => {
    const lookAlike = Object.assign(new Error("[message-store] x"), { code: "VALIDATION" });
    for (const v of [lookAlike, null, undefined, "error", 1, {}, { code: "VALIDATION" }]) {
      expect(isMessageStoreError(v)).toBe(false);
    }
    const wrongValue = { [Symbol.for("@message-store/core/MessageStoreError")]: "yes" };
    expect(isMessageStoreError(wrongValue)).toBe(false);
  });
});

describe("secret redaction in ConnectionError and ConfigurationError", () => {
  const dsn = "postgres://alice:s3cr3t-pw@db.example:5432/app";

  it("redacts the message, the cause message and the cause stack", () => {
    const cause = new Error(`connect ECONNREFUSED for ${dsn}`);
    cause.stack = `Error: connect failed ${dsn}\n    at connect (pg.js:1:1) password=s3cr3t-pw`;
    Object.assign(cause, { code: "ECONNREFUSED" });
    const error = new ConnectionError(`cannot reach ${dsn}`, { adapter: "postgres", cause });
    const all = [
      error.message,
      String((error.cause as Error).message),
      (error.cause as Error).stack,
    ];
    for (const text of all) expect(text).not.toContain("s3cr3t-pw");
    expect(error.message).toBe(
      "[message-store] [postgres] cannot reach postgres://alice:***@db.example:5432/app",
    );
    expect((error.cause as Error).name).toBe("Error");
    expect((error.cause as { code?: string }).code).toBe("ECONNREFUSED");
    expect(cause.message).toContain("s3cr3t-pw"); // the original is not mutated
  });

  it("redacts a non-Error cause into a string and keeps a missing cause missing", () => {
    const error = new ConnectionError("x", { cause: { toString: () => `password=hunter2` } });
    expect(error.cause).toBe("password=***");
    expect("cause" in new ConnectionError("x")).toBe(false);
  });

  it("ConfigurationError redacts too", () => {
    const error = new ConfigurationError(`bad dsn ${dsn}`, { cause: new Error(dsn) });
    expect(error.message).not.toContain("s3cr3t-pw");
    expect((error.cause as Error).message).not.toContain("s3cr3t-pw");
    expect((error.cause as Error).stack).not.toContain("s3cr3t-pw");
  });
});
