import { isMessageStoreError, type MessageStore } from "@message-store/core";
import { expect } from "vitest";
import { message } from "./messages.js";

/** One store call made by the workload, with its timing and outcome. */
export interface CallRecord {
  kind: "write" | "read";
  /** Message ids written (or read). */
  ids: string[];
  start: number;
  end: number | null;
  ok: boolean | null;
  error: unknown;
  /** A read of an acknowledged message that came back null. */
  lost: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Concurrent writers and readers on one store: each worker loops over single writes, small
 * batches and reads of acknowledged messages until stopped, recording every call. After a
 * failure a worker pauses 50 ms, so an outage is not a busy loop.
 */
export class Workload {
  readonly calls: CallRecord[] = [];
  readonly #acked = new Set<string>();
  #stopped = false;
  #running: Promise<void>[] = [];
  #counter = 0;

  constructor(
    private readonly store: MessageStore,
    private readonly conversations: string[],
    private readonly options: {
      workers: number;
      prefix: string;
      checkReads: boolean;
      /** Writes of 1 or 3 messages (default); `false`: single messages only. */
      batches?: boolean;
    },
  ) {}

  /** Ids whose write resolved. */
  get acknowledged(): ReadonlySet<string> {
    return this.#acked;
  }

  start(): void {
    for (let w = 0; w < this.options.workers; w++) this.#running.push(this.#worker(w));
  }

  /** Stops issuing calls and waits for the ones in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#running);
  }

  /** Calls that had started and not settled at time `t`. */
  inFlightAt(t: number): CallRecord[] {
    return this.calls.filter((c) => c.start <= t && (c.end === null || c.end > t));
  }

  async #worker(w: number): Promise<void> {
    while (!this.#stopped) {
      const r = (this.#counter * 7919 + w * 104729) % 10;
      const conversation = this.conversations[this.#counter % this.conversations.length]!;
      const n = this.#counter++;
      const acked = [...this.#acked];
      const call: CallRecord = {
        kind: r < 7 || acked.length === 0 ? "write" : "read",
        ids: [],
        start: Date.now(),
        end: null,
        ok: null,
        error: undefined,
        lost: false,
      };
      this.calls.push(call);
      try {
        if (call.kind === "write") {
          const size = r < 5 || this.options.batches === false ? 1 : 3;
          const batch = Array.from({ length: size }, (_, i) =>
            message(`${this.options.prefix}w${w}-${n}-${i}`, conversation, 1_000 + n),
          );
          call.ids = batch.map((m) => m.id);
          await this.store.storeMessages(batch);
          for (const id of call.ids) this.#acked.add(id);
        } else {
          const id = acked[n % acked.length]!;
          call.ids = [id];
          const found = await this.store.getMessage(id);
          if (found === null && this.options.checkReads) call.lost = true;
        }
        call.ok = true;
      } catch (error) {
        call.ok = false;
        call.error = error;
      } finally {
        call.end = Date.now();
      }
      if (!call.ok) await sleep(50);
    }
  }
}

/** The code of a message-store error, or a description of anything else. */
export function codeOf(error: unknown): string {
  return isMessageStoreError(error) ? error.code : `not a MessageStoreError: ${String(error)}`;
}

/** Message and cause chain of an error, for assertion messages. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, i = 0; e !== undefined && e !== null && i < 4; i++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(" <- caused by ");
}

/**
 * Checks the calls of a workload that lived through an outage starting at `downAt`: every call
 * (in particular each one in flight at `downAt`) settled within `boundMs`, every failure was a
 * `ConnectionError`, and no acknowledged message read back as null. Soft assertions, so one run
 * reports every kind of violation; each list shows its first five entries and its size.
 */
export function checkOutageCalls(workload: Workload, downAt: number, boundMs: number): void {
  const describe = (c: CallRecord) =>
    `${c.kind} ${c.ids[0]} started ${c.start - downAt} ms after the outage: ${c.ok ? "ok" : codeOf(c.error)} after ${(c.end ?? Number.NaN) - c.start} ms${c.ok ? "" : ` (${describeError(c.error)})`}`;
  const report = (list: CallRecord[]) => ({
    count: list.length,
    first: list.slice(0, 5).map(describe),
  });
  const none = { count: 0, first: [] };
  const inFlight = workload.inFlightAt(downAt);
  expect(inFlight.length, "nothing was in flight at the outage").toBeGreaterThan(0);
  expect
    .soft(
      report(inFlight.filter((c) => c.end === null || c.end - downAt >= boundMs)),
      `calls in flight at the outage that did not settle within ${boundMs} ms`,
    )
    .toEqual(none);
  expect
    .soft(
      report(workload.calls.filter((c) => c.end === null || c.end - c.start >= boundMs)),
      `calls that took ${boundMs} ms or more`,
    )
    .toEqual(none);
  expect
    .soft(
      report(
        workload.calls.filter(
          (c) => c.ok === false && !["CONNECTION", "OUTCOME_UNKNOWN"].includes(codeOf(c.error)),
        ),
      ),
      "calls that failed with something other than ConnectionError (OutcomeUnknownError included)",
    )
    .toEqual(none);
  expect
    .soft(
      report(workload.calls.filter((c) => c.lost)),
      "acknowledged messages that read back as null",
    )
    .toEqual(none);
}
