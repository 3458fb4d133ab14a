import type {
  ConversationInput,
  MessageInput,
  MessageStore,
  SessionOptions,
  StoredCheckpoint,
  TurnTraceInput,
} from "@message-store/core";
import { checkpointPuts } from "./checkpoint-record.js";
import { type ExportCounts, noCounts } from "./ndjson.js";

/**
 * Writes (conversations, message batches, trace batches) in flight at once. The source is read
 * while earlier batches are being written, and a server with several cores stores batches side
 * by side; a batch waits only for the writes it depends on (its conversations, earlier batches
 * of them).
 */
const WRITE_CONCURRENCY = 4;

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
  /** A checkpoint of the conversation given last (its values and pending writes with it). */
  checkpoint(checkpoint: StoredCheckpoint, origin: string): Promise<void>;
  flush(): Promise<void>;
}

/**
 * The owners a checkpoint of `conversation` is put with, as `putCheckpoint` needs them; throws
 * when the checkpoint is not of the conversation given last (an export writes a thread's
 * checkpoints right after its conversation, so the writer needs to remember only that one) or
 * that conversation is soft-deleted.
 */
export function checkpointOwner(
  conversation: Record<string, unknown> | null,
  checkpoint: StoredCheckpoint,
  origin: string,
): SessionOptions {
  if (conversation === null || conversation.id !== checkpoint.conversationId) {
    throw new WriteError(
      `could not store ${origin}: it must follow its conversation ${JSON.stringify(checkpoint.conversationId)} (and precede the next one)`,
    );
  }
  if (conversation.deletedAt != null) {
    // The store refuses checkpoints into a soft-deleted conversation (and hides its own).
    throw new WriteError(
      `could not store ${origin}: its conversation ${JSON.stringify(checkpoint.conversationId)} is soft-deleted`,
    );
  }
  const { userId, tenantId } = conversation as { userId: string; tenantId?: string | null };
  return { userId, ...(tenantId == null ? {} : { tenantId }) };
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
 * messages keep their order), then traces in batches of `batchSize` (`storeTurnTraces`) once
 * their messages are stored. Every write is an upsert, so replaying the same records is
 * harmless.
 *
 * Up to {@link WRITE_CONCURRENCY} writes run at once, each after the writes it depends on: a
 * batch after its conversations and after the previous batch holding any of them (so a
 * conversation's messages are stored in order, and its traces after its messages). The first
 * failure is thrown by the next call (or `flush`), and nothing is dispatched after it.
 */
export class BatchWriter implements RecordSink {
  readonly written: ExportCounts = noCounts();
  /** The conversation given last: its checkpoints follow it. */
  #conversation: Record<string, unknown> | null = null;
  #messages: Pending<MessageInput>[] = [];
  #messageIds = new Set<string>();
  #traces: Pending<TurnTraceInput>[] = [];
  #traceIds = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  /** The latest write each conversation's next batch must wait for (its own, or a batch's). */
  readonly #after = new Map<string, Promise<void>>();
  #failure: unknown = null;

  constructor(
    private readonly target: MessageStore,
    private readonly batchSize: number,
    /** Called after each batch of messages or traces is stored. */
    private readonly onBatch: (written: ExportCounts) => void = () => {},
  ) {}

  /**
   * Starts storing a conversation (messages pending from earlier conversations do not depend on
   * it; its own messages wait for it).
   */
  async conversation(record: Record<string, unknown>, origin: string): Promise<void> {
    const { lastActivityAt: _derived, ...input } = record;
    this.#conversation = record;
    const write = async () => {
      await this.#attempt(origin, () => this.target.storeConversation(input as ConversationInput));
      this.written.conversations++;
    };
    await this.#dispatch([String(record.id)], write);
  }

  /** Queues messages (in transcript order); stores a batch whenever `batchSize` are queued. */
  async messages(
    records: Record<string, unknown>[],
    origin: (index: number) => string,
  ): Promise<void> {
    for (const [i, record] of records.entries()) {
      // The same id twice in one batch is rejected by the store; keep such a pair in two batches.
      if (typeof record.id === "string" && this.#messageIds.has(record.id))
        await this.#dispatchMessages();
      this.#messages.push({ record: record as MessageInput, origin: origin(i) });
      if (typeof record.id === "string") this.#messageIds.add(record.id);
      if (this.#messages.length >= this.batchSize) await this.#dispatchMessages();
    }
  }

  /** Queues a trace; it is stored after the messages queued before it. */
  async trace(record: Record<string, unknown>, origin: string): Promise<void> {
    // The same id twice in one batch is rejected by the store; keep such a pair in two batches.
    if (typeof record.id === "string" && this.#traceIds.has(record.id))
      await this.#dispatchTraces();
    this.#traces.push({ record: record as TurnTraceInput, origin });
    if (typeof record.id === "string") this.#traceIds.add(record.id);
    if (this.#traces.length >= this.batchSize) await this.#dispatchTraces();
  }

  /**
   * Stores a checkpoint of the conversation given last, after that conversation's writes: its
   * `putCheckpoint` (channel values included), then a `putCheckpointWrites` per task. Upserts,
   * so replaying it is harmless. A thread's checkpoints are independent writes (each channel
   * value travels with one of them), so they are stored side by side, not one after the other.
   */
  async checkpoint(checkpoint: StoredCheckpoint, origin: string): Promise<void> {
    const owner = checkpointOwner(this.#conversation, checkpoint, origin);
    const puts = checkpointPuts(checkpoint);
    await this.#dispatch(
      [checkpoint.conversationId],
      async () => {
        await this.#attempt(origin, async () => {
          await this.target.putCheckpoint(puts.checkpoint, owner);
          for (const task of puts.writes) await this.target.putCheckpointWrites(task, owner);
        });
        this.written.checkpoints++;
        this.onBatch(this.written);
      },
      false,
    );
  }

  /** Stores everything pending (messages, then traces) and waits for every write in flight. */
  async flush(): Promise<void> {
    await this.#dispatchTraces();
    await this.#flushMessages();
  }

  /**
   * Dispatches the queued traces as one batch, after the queued messages (which they may
   * belong to): each batch waits for the writes of its conversations.
   */
  async #dispatchTraces(): Promise<void> {
    await this.#dispatchMessages();
    if (this.#traces.length === 0) return;
    const batch = this.#traces;
    this.#traces = [];
    this.#traceIds.clear();
    await this.#dispatchBatch(batch, "turnTraces", (records) =>
      this.target.storeTurnTraces(records),
    );
  }

  /** Dispatches the queued messages and waits for every write in flight. */
  async #flushMessages(): Promise<void> {
    await this.#dispatchMessages();
    await Promise.all(this.#inFlight);
    this.#after.clear();
    this.#throwFailure();
  }

  async #dispatchMessages(): Promise<void> {
    while (this.#messages.length > 0) {
      const batch = this.#messages.splice(0, this.batchSize);
      await this.#dispatchBatch(batch, "messages", (records) => this.target.storeMessages(records));
    }
    this.#messageIds.clear();
  }

  /** Dispatches one batch of records (after the writes of their conversations) and counts it. */
  async #dispatchBatch<T extends { conversationId: string }>(
    batch: Pending<T>[],
    counter: "messages" | "turnTraces",
    store: (records: T[]) => Promise<unknown>,
  ): Promise<void> {
    const conversations = [...new Set(batch.map((p) => String(p.record.conversationId)))];
    await this.#dispatch(conversations, async () => {
      await this.#attempt(describeOrigins(batch), () => store(batch.map((p) => p.record)));
      this.written[counter] += batch.length;
      this.onBatch(this.written);
    });
  }

  /**
   * Starts `write` once the writes `conversations` wait for are done, and returns when fewer
   * than {@link WRITE_CONCURRENCY} writes are in flight. A `sequenced` write is one the
   * conversations' next writes wait for in turn; another one (a checkpoint) only waits.
   */
  async #dispatch(
    conversations: string[],
    write: () => Promise<void>,
    sequenced = true,
  ): Promise<void> {
    this.#throwFailure();
    const before = conversations.flatMap((id) => this.#after.get(id) ?? []);
    const done = Promise.all(before)
      // Nothing more is written after a failure (a batch of a conversation that failed would
      // only fail again).
      .then(() => (this.#failure === null ? write() : undefined))
      .catch((error: unknown) => {
        this.#failure ??= error;
      });
    if (sequenced) for (const id of conversations) this.#after.set(id, done);
    this.#inFlight.add(done);
    void done.then(() => {
      this.#inFlight.delete(done);
      for (const id of conversations) if (this.#after.get(id) === done) this.#after.delete(id);
    });
    while (this.#inFlight.size >= WRITE_CONCURRENCY) await Promise.race(this.#inFlight);
    this.#throwFailure();
  }

  #throwFailure(): void {
    if (this.#failure !== null) throw this.#failure;
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
