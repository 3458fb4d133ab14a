import type {
  ConversationInput,
  MessageInput,
  MessageStore,
  TurnTraceInput,
} from "@message-store/core";
import type { ExportCounts } from "./ndjson.js";

/** Traces are upserted one call each; this many run at once. */
const TRACE_CONCURRENCY = 16;

interface Pending<T> {
  record: T;
  /** Where the record came from, for error messages ("line 42", "conversation c-1"). */
  origin: string;
}

/** Where an import sends the records it reads (a store's writer, or a validator). */
export interface RecordSink {
  conversation(record: Record<string, unknown>, origin: string): Promise<void>;
  messages(records: Record<string, unknown>[], origin: (index: number) => string): Promise<void>;
  trace(record: Record<string, unknown>, origin: string): Promise<void>;
  flush(): Promise<void>;
}

/** A write that failed, with where its records came from. The store's error is the `cause`. */
export class WriteError extends Error {
  override name = "WriteError";
}

function describeOrigins(items: Pending<unknown>[]): string {
  if (items.length === 1) return items[0]!.origin;
  return `${items[0]!.origin} … ${items[items.length - 1]!.origin}`;
}

/**
 * Upserts records into a store in the order a transcript needs: a conversation first, then its
 * messages in batches of `batchSize` (`storeMessages`, array order preserved so same-timestamp
 * messages keep their order), then traces once their messages are stored. Every write is an
 * upsert, so replaying the same records is harmless.
 */
export class BatchWriter implements RecordSink {
  readonly written: ExportCounts = { conversations: 0, messages: 0, turnTraces: 0 };
  #messages: Pending<MessageInput>[] = [];
  #messageIds = new Set<string>();
  #traces: Pending<TurnTraceInput>[] = [];

  constructor(
    private readonly target: MessageStore,
    private readonly batchSize: number,
    /** Called after each batch of messages is stored. */
    private readonly onBatch: (written: ExportCounts) => void = () => {},
  ) {}

  /** Stores a conversation now (messages pending from earlier conversations do not depend on it). */
  async conversation(record: Record<string, unknown>, origin: string): Promise<void> {
    const { lastActivityAt: _derived, ...input } = record;
    await this.#attempt(origin, () => this.target.storeConversation(input as ConversationInput));
    this.written.conversations++;
  }

  /** Queues messages (in transcript order); stores a batch whenever `batchSize` are queued. */
  async messages(
    records: Record<string, unknown>[],
    origin: (index: number) => string,
  ): Promise<void> {
    for (const [i, record] of records.entries()) {
      // The same id twice in one batch is rejected by the store; keep such a pair in two batches.
      if (typeof record.id === "string" && this.#messageIds.has(record.id)) await this.flush();
      this.#messages.push({ record: record as MessageInput, origin: origin(i) });
      if (typeof record.id === "string") this.#messageIds.add(record.id);
      if (this.#messages.length >= this.batchSize) await this.#flushMessages();
    }
  }

  /** Queues a trace; it is stored after the pending messages. */
  async trace(record: Record<string, unknown>, origin: string): Promise<void> {
    this.#traces.push({ record: record as TurnTraceInput, origin });
    if (this.#traces.length >= this.batchSize) await this.flush();
  }

  /** Stores everything pending: messages first, then traces. */
  async flush(): Promise<void> {
    await this.#flushMessages();
    const traces = this.#traces;
    this.#traces = [];
    for (let i = 0; i < traces.length; i += TRACE_CONCURRENCY) {
      const chunk = traces.slice(i, i + TRACE_CONCURRENCY);
      const results = await Promise.allSettled(
        chunk.map((t) => this.target.storeTurnTrace(t.record)),
      );
      const failed = results.findIndex((r) => r.status === "rejected");
      if (failed !== -1) {
        const reason = (results[failed] as PromiseRejectedResult).reason;
        throw this.#wrap(chunk[failed]!.origin, reason);
      }
      this.written.turnTraces += chunk.length;
    }
  }

  async #flushMessages(): Promise<void> {
    while (this.#messages.length > 0) {
      const batch = this.#messages.splice(0, this.batchSize);
      await this.#attempt(describeOrigins(batch), () =>
        this.target.storeMessages(batch.map((m) => m.record)),
      );
      this.written.messages += batch.length;
      this.onBatch(this.written);
    }
    this.#messageIds.clear();
  }

  async #attempt<T>(origin: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      throw this.#wrap(origin, error);
    }
  }

  #wrap(origin: string, error: unknown): WriteError {
    return new WriteError(`could not store ${origin}: ${(error as Error)?.message ?? error}`, {
      cause: error,
    });
  }
}
