import {
  isMessageStoreError,
  StorageError,
  StoreClosedError,
  scrubCause,
  stampAdapter,
} from "../errors.js";
import { redactSecrets } from "../redact.js";
import type { MessageStoreDriver } from "./driver.js";
import type { DriverOperation } from "./operation-table.js";

/**
 * The lifetime of one driver, shared by its store and every view of it: whether `close()` was
 * called, the calls in flight `close()` waits for, and the error stamping every call goes through.
 */
export class Lifecycle {
  #closed = false;
  #closing: Promise<void> | null = null;
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(readonly driver: MessageStoreDriver) {}

  get closed(): boolean {
    return this.#closed;
  }

  /** Throws `StoreClosedError` once `close()` was called. */
  assertOpen(): void {
    if (this.#closed) throw new StoreClosedError({ adapter: this.driver.name });
  }

  /** Runs one driver call: rejected after close, awaited by close, its errors stamped. */
  async run<T>(op: DriverOperation, call: () => Promise<T>): Promise<T> {
    this.assertOpen();
    const pending = this.#guard(op, call);
    this.#inFlight.add(pending);
    try {
      return await pending;
    } finally {
      this.#inFlight.delete(pending);
    }
  }

  /** Marks closed, waits for calls in flight, then closes the driver once. */
  close(): Promise<void> {
    if (!this.#closing) {
      this.#closed = true;
      this.#closing = Promise.allSettled([...this.#inFlight]).then(() =>
        this.#guard("close", () => this.driver.close()),
      );
    }
    return this.#closing;
  }

  /** Whatever `call` throws, synchronously or not, is core's error with the driver's name. */
  async #guard<T>(op: DriverOperation | "close", call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.stamp(error, op);
    }
  }

  /** `error`, thrown by the driver's `op`, as core's error class with the driver's name. */
  stamp(error: unknown, op: DriverOperation | "close"): Error {
    const mapped = isMessageStoreError(error)
      ? error
      : (this.driver.mapError?.(error, op) ?? unexpected(error));
    return stampAdapter(mapped, this.driver.name);
  }
}

/** What an error no mapping knows becomes: a `StorageError` scrubbed of passwords. */
function unexpected(error: unknown): StorageError {
  const text = redactSecrets(error instanceof Error ? error.message : String(error));
  return new StorageError(`unexpected error: ${text}`, { cause: scrubCause(error) });
}
