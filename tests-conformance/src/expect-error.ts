import {
  isMessageStoreError,
  type MessageStoreError,
  type MessageStoreErrorCode,
} from "@message-store/core";
import { expect } from "vitest";

const NAMES: Record<MessageStoreErrorCode, string> = {
  VALIDATION: "ValidationError",
  INTEGRITY: "IntegrityError",
  NOT_FOUND: "NotFoundError",
  CONNECTION: "ConnectionError",
  OUTCOME_UNKNOWN: "OutcomeUnknownError",
  CORRUPT_DATA: "CorruptDataError",
  STORE_CLOSED: "StoreClosedError",
  STORE_LOCKED: "StoreLockedError",
  CONFIGURATION: "ConfigurationError",
  STORAGE: "StorageError",
  UNSUPPORTED: "UnsupportedOperationError",
};

function describeValue(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? String(value);
  } catch {
    return String(value);
  }
}

function check(error: unknown, code: MessageStoreErrorCode, what: string): MessageStoreError {
  expect(
    isMessageStoreError(error),
    `${what}: expected a ${NAMES[code]} (code ${code}), got ${describeValue(error)}`,
  ).toBe(true);
  const e = error as MessageStoreError;
  expect(e.code, `${what}: wrong error code (${e.message})`).toBe(code);
  expect(e.name, `${what}: wrong error class`).toBe(NAMES[code]);
  if (code === "VALIDATION") {
    const issues = (e as unknown as { issues?: unknown }).issues;
    expect(
      Array.isArray(issues) && issues.length > 0,
      `${what}: ValidationError without issues`,
    ).toBe(true);
  }
  return e;
}

/**
 * Asserts that `action()` returns a promise that rejects with the core error of `code`
 * (checked with `isMessageStoreError`, `code` and class name). A synchronous throw fails: every
 * method of the contract is async. Resolves to the error for further checks.
 */
export async function expectRejection(
  action: () => unknown,
  code: MessageStoreErrorCode,
  what = "call",
): Promise<MessageStoreError> {
  let pending: unknown;
  try {
    pending = action();
  } catch (error) {
    expect.fail(`${what}: threw synchronously instead of rejecting: ${describeValue(error)}`);
  }
  expect(pending instanceof Promise, `${what}: did not return a promise`).toBe(true);
  let settled: { ok: true; value: unknown } | { ok: false; error: unknown };
  try {
    settled = { ok: true, value: await pending };
  } catch (error) {
    settled = { ok: false, error };
  }
  if (settled.ok) {
    expect.fail(
      `${what}: expected a rejection with ${NAMES[code]}, but it resolved to ${describeValue(settled.value)}`,
    );
  }
  return check(settled.error, code, what);
}

/** Asserts that `action()` throws synchronously with the core error of `code`. */
export function expectThrow(
  action: () => unknown,
  code: MessageStoreErrorCode,
  what = "call",
): MessageStoreError {
  try {
    action();
  } catch (error) {
    return check(error, code, what);
  }
  return expect.fail(`${what}: expected ${NAMES[code]} to be thrown`);
}

/**
 * Runs every call and asserts each rejects with `code`; reports all failures together, so one
 * run shows every method that misbehaves.
 */
export async function expectAllRejections(
  calls: readonly (readonly [string, () => unknown])[],
  code: MessageStoreErrorCode,
): Promise<void> {
  const failures: string[] = [];
  for (const [what, call] of calls) {
    try {
      await expectRejection(call, code, what);
    } catch (error) {
      failures.push((error as Error).message.split("\n")[0]!);
    }
  }
  expect(failures, `${failures.length} call(s) did not reject with ${NAMES[code]}`).toEqual([]);
}
