import {
  CheckpointInputSchema,
  CheckpointWritesInputSchema,
  ConversationInputSchema,
  MessageSchema,
  type StoredCheckpoint,
  TurnTraceSchema,
} from "@message-store/core";
import { parseInput } from "@message-store/core/adapter";
import { checkpointOwner, type RecordSink, WriteError } from "./batch-writer.js";
import { checkpointPuts } from "./checkpoint-record.js";

/**
 * A sink that stores nothing: it checks each record against the model the store would check it
 * against (`parseInput`, so the message is the store's own) and throws `WriteError` naming the
 * line. Run over a whole export file before any store is opened, so a bad record never leaves a
 * target behind, whatever the backend.
 */
export class ExportValidator implements RecordSink {
  #conversation: Record<string, unknown> | null = null;

  async conversation(record: Record<string, unknown>, origin: string): Promise<void> {
    this.#conversation = record;
    const { lastActivityAt: _derived, ...input } = record;
    check(() => parseInput(ConversationInputSchema, input, "conversation"), origin);
  }

  async messages(
    records: Record<string, unknown>[],
    origin: (index: number) => string,
  ): Promise<void> {
    for (const [i, record] of records.entries()) {
      check(() => parseInput(MessageSchema, record, "message"), origin(i));
    }
  }

  async trace(record: Record<string, unknown>, origin: string): Promise<void> {
    check(() => parseInput(TurnTraceSchema, record, "turn trace"), origin);
  }

  async checkpoint(checkpoint: StoredCheckpoint, origin: string): Promise<void> {
    checkpointOwner(this.#conversation, checkpoint, origin);
    const puts = checkpointPuts(checkpoint);
    check(() => parseInput(CheckpointInputSchema, puts.checkpoint, "checkpoint"), origin);
    for (const task of puts.writes) {
      check(() => parseInput(CheckpointWritesInputSchema, task, "checkpoint writes"), origin);
    }
  }

  async flush(): Promise<void> {}
}

function check(parse: () => unknown, origin: string): void {
  try {
    parse();
  } catch (error) {
    throw new WriteError(`could not store ${origin}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
