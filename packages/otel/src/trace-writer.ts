import { IntegrityError, type MessageStoreApi, newId } from "@message-store/core";
import type { DraftTrace } from "./turn-draft.js";

/** How long and how many traces wait for their assistant message. */
export interface TraceWriterOptions {
  /** Traces held while their message is not stored yet; the oldest is dropped past it. Default 1000. */
  maxPending?: number;
  /** How long a trace waits for its message before it is dropped (ms). Default 60 000. */
  waitMs?: number;
  /** Time between two retries of the waiting traces (ms). Default 1000. */
  retryIntervalMs?: number;
  /**
   * Told of every trace that could not be stored (a store error, or a trace dropped after
   * waiting); never throws into the app. Default: ignore.
   */
  onError?: (error: unknown, trace?: DraftTrace) => void;
}

/** Counters of a {@link TraceWriter}. */
export interface TraceWriterStats {
  /** Traces stored (a trace stored again after more spans arrived counts again). */
  stored: number;
  /** Traces waiting for their message now. */
  pending: number;
  /** Traces dropped: waited too long, or pushed out by `maxPending`. */
  dropped: number;
  /** Traces the store refused for another reason (reported to `onError`). */
  failed: number;
}

interface Waiting {
  trace: DraftTrace;
  since: number;
}

/** The error a dropped trace is reported with. */
export class TraceDroppedError extends Error {
  override readonly name = "TraceDroppedError";
}

/**
 * Stores turn traces in the background: `write` returns at once and never throws. A message has
 * one trace, so a trace for a message that has one takes its id (writing the same turn again
 * replaces it). A trace whose message is not stored yet waits for it in memory, retried every
 * `retryIntervalMs`, bounded by `maxPending` and `waitMs`; a dropped trace is counted and
 * reported to `onError`.
 */
export class TraceWriter {
  readonly #store: MessageStoreApi;
  readonly #maxPending: number;
  readonly #waitMs: number;
  readonly #retryMs: number;
  readonly #onError: (error: unknown, trace?: DraftTrace) => void;
  /** By message id: a newer trace of a message replaces the waiting one. */
  readonly #pending = new Map<string, Waiting>();
  readonly #inFlight = new Set<Promise<void>>();
  /** The write under way per message: a message's traces are written one after the other. */
  readonly #chains = new Map<string, Promise<void>>();
  /** The newest trace per message with a write queued: an older one queued behind is skipped. */
  readonly #newest = new Map<string, DraftTrace>();
  #timer: NodeJS.Timeout | undefined;
  readonly #stats = { stored: 0, dropped: 0, failed: 0 };

  constructor(store: MessageStoreApi, options: TraceWriterOptions = {}) {
    this.#store = store;
    this.#maxPending = options.maxPending ?? 1000;
    this.#waitMs = options.waitMs ?? 60_000;
    this.#retryMs = options.retryIntervalMs ?? 1000;
    this.#onError = options.onError ?? (() => {});
  }

  get stats(): TraceWriterStats {
    return { ...this.#stats, pending: this.#pending.size };
  }

  /** Stores `trace` in the background (see the class). */
  write(trace: DraftTrace): void {
    const id = trace.messageId;
    this.#newest.set(id, trace);
    const previous = this.#chains.get(id) ?? Promise.resolve();
    const next = previous.then(() => {
      if (this.#newest.get(id) !== trace) return;
      this.#newest.delete(id);
      return this.#attempt(trace, Date.now());
    });
    this.#chains.set(id, next);
    void next.finally(() => {
      if (this.#chains.get(id) === next) this.#chains.delete(id);
    });
    this.#track(next);
  }

  /** Resolves when the writes under way have settled and the waiting traces were retried once. */
  async flush(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
    await this.#retry();
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /** Flushes, then stops retrying; traces still waiting are dropped (counted, reported). */
  async close(): Promise<void> {
    await this.flush();
    this.#stopTimer();
    for (const { trace } of this.#pending.values()) this.#drop(trace, "the writer was closed");
    this.#pending.clear();
  }

  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  async #attempt(trace: DraftTrace, since: number): Promise<void> {
    try {
      await this.#store1(trace);
      this.#stats.stored++;
      if (this.#pending.get(trace.messageId)?.trace === trace)
        this.#pending.delete(trace.messageId);
    } catch (error) {
      if (error instanceof IntegrityError && (await this.#messageMissing(trace))) {
        this.#wait(trace, since);
        return;
      }
      this.#stats.failed++;
      this.#report(error, trace);
    }
  }

  async #store1(trace: DraftTrace): Promise<void> {
    const existing = await this.#store.getTurnTraceByMessageId(trace.messageId);
    await this.#store.storeTurnTrace({ ...trace, id: existing?.id ?? newId() });
  }

  async #messageMissing(trace: DraftTrace): Promise<boolean> {
    try {
      return (await this.#store.getMessage(trace.messageId)) === null;
    } catch {
      return false;
    }
  }

  #wait(trace: DraftTrace, since: number): void {
    if (Date.now() - since >= this.#waitMs) {
      this.#pending.delete(trace.messageId);
      this.#drop(trace, `its message ${trace.messageId} was not stored within ${this.#waitMs} ms`);
      return;
    }
    this.#pending.delete(trace.messageId);
    this.#pending.set(trace.messageId, { trace, since });
    while (this.#pending.size > this.#maxPending) {
      const [oldestId, oldest] = this.#pending.entries().next().value as [string, Waiting];
      this.#pending.delete(oldestId);
      this.#drop(oldest.trace, `more than ${this.#maxPending} traces were waiting`);
    }
    this.#startTimer();
  }

  #drop(trace: DraftTrace, why: string): void {
    this.#stats.dropped++;
    this.#report(new TraceDroppedError(`turn trace dropped: ${why}`), trace);
  }

  #report(error: unknown, trace: DraftTrace): void {
    try {
      this.#onError(error, trace);
    } catch {
      // The app's handler must not break the writer.
    }
  }

  async #retry(): Promise<void> {
    const waiting = [...this.#pending.values()];
    await Promise.all(waiting.map(({ trace, since }) => this.#attempt(trace, since)));
    if (this.#pending.size === 0) this.#stopTimer();
  }

  #startTimer(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#track(this.#retry()), this.#retryMs);
    // Waiting traces must not keep the process alive.
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
