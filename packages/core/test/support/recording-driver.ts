import {
  DRIVER_OPERATIONS,
  type DriverOperation,
  type MessageStoreDriver,
} from "../../src/adapter.js";
import { MessageStore, type StoreCapabilities } from "../../src/index.js";
import { MemoryDriver } from "../../src/memory.js";

/** One call core made on the driver (`close` has no request). */
export interface DriverCall {
  readonly op: DriverOperation | "close";
  readonly request: any;
}

/** A memory driver that records what core asks of it. */
export interface RecordingDriver extends MessageStoreDriver {
  /** Every call, in call order, with its request. */
  readonly calls: DriverCall[];
  /** The methods called, in order. */
  readonly ops: DriverCall["op"][];
  /** The page requests of list calls, in order. */
  readonly pages: { after: unknown; take: number | null }[];
  /** How many times `close()` was called. */
  closeCount: number;
  /** When set, every operation awaits it before running. */
  gate: Promise<void> | null;
}

export interface RecordingOptions {
  /** Replaces the memory driver's capabilities (fewer: an adapter that lacks some). */
  capabilities?: Partial<StoreCapabilities>;
  /** Replaces methods of the memory driver: a failure or a bug planted by the test. */
  overrides?: Partial<MessageStoreDriver>;
}

/**
 * Core's `MemoryDriver` behind a wrapper derived from `DRIVER_OPERATIONS`, which records every
 * call, so a test can prove what core did (or did not) ask of the driver.
 */
export function recordingDriver(options: RecordingOptions = {}): RecordingDriver {
  const inner: MessageStoreDriver = new MemoryDriver();
  const source = { ...bound(inner), ...options.overrides };
  const calls: DriverCall[] = [];
  const driver = {
    name: "memory",
    capabilities: { ...inner.capabilities, ...options.capabilities },
    calls,
    get ops() {
      return calls.map((c) => c.op);
    },
    get pages() {
      return calls.filter((c) => c.request?.page).map((c) => c.request.page);
    },
    closeCount: 0,
    gate: null,
    async close() {
      calls.push({ op: "close", request: undefined });
      driver.closeCount++;
      await source.close!();
    },
  } as RecordingDriver;
  if (source.mapError) driver.mapError = source.mapError;
  for (const op of DRIVER_OPERATIONS) {
    const method = source[op] as ((request: unknown) => Promise<unknown>) | undefined;
    if (!method) continue;
    (driver as any)[op] = async (request: unknown) => {
      calls.push({ op, request });
      if (driver.gate) await driver.gate;
      return method(request);
    };
  }
  return driver;
}

/** A store over a {@link recordingDriver}. */
export function recordingStore(options: RecordingOptions = {}): MessageStore<RecordingDriver> {
  return new MessageStore(recordingDriver(options));
}

/** The driver's methods, bound to it (a class's methods live on its prototype). */
function bound(driver: MessageStoreDriver): Partial<MessageStoreDriver> {
  const out: Record<string, unknown> = {};
  for (const key of [...DRIVER_OPERATIONS, "close", "mapError"] as const) {
    const method = driver[key];
    if (typeof method === "function") out[key] = method.bind(driver);
  }
  return out as Partial<MessageStoreDriver>;
}
