import {
  isMessageStoreError,
  StorageError,
  StoreClosedError,
  scrubCause,
  stampAdapter,
} from "../errors.js";
import { redactSecrets } from "../redact.js";
import type { MessageStoreDriver } from "./driver.js";

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
  async run<T>(call: () => Promise<T>): Promise<T> {
    this.assertOpen();
    const pending = this.#guard(call);
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
        this.#guard(() => this.driver.close()),
      );
    }
    return this.#closing;
  }

  /** Whatever `call` throws, synchronously or not, is core's error with the driver's name. */
  async #guard<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.stamp(error);
    }
  }

  /** `error` as core's error class, with the driver's name. */
  stamp(error: unknown): Error {
    const mapped = isMessageStoreError(error)
      ? error
      : (this.driver.mapError?.(error) ?? unexpected(error));
    return stampAdapter(mapped, this.driver.name);
  }
}

/** What an error no mapping knows becomes: a `StorageError` scrubbed of passwords. */
function unexpected(error: unknown): StorageError {
  const text = redactSecrets(error instanceof Error ? error.message : String(error));
  return new StorageError(`unexpected error: ${text}`, { cause: scrubCause(error) });
}
