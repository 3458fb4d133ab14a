import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { finished } from "node:stream/promises";
import type { Conversation, MessageStore } from "@message-store/core";
import {
  type CarriedValues,
  checkpointLineData,
  hiddenCheckpointsNote,
  withoutCarriedValues,
} from "../checkpoint-record.js";
import { formatRecordCounts } from "../format/numbers.js";
import { dataLine, type ExportCounts, footerLine, headerLine, noCounts } from "../ndjson.js";
import { openStore } from "../open-store.js";
import { writeLine } from "../output.js";
import { describeStore, type StoreConfigObject } from "../store-spec.js";
import { checkpointPages, conversationPages, conversationTraces, messagePages } from "../walk.js";

export interface ExportOptions {
  /** File to write; standard output when absent or `-`. */
  output?: string;
  /** Only this user's conversations. */
  user?: string;
  /** Records read per call to the store. */
  pageSize: number;
}

/**
 * Writes every conversation of `store` as NDJSON: a header; then, by conversation id, the
 * conversation, its messages in transcript order, its traces (timestamp, id ascending) and its
 * checkpoints (newest first, as `listCheckpoints` lists them); then a footer with the counts. Keys are sorted and `lastActivityAt` (derived) is left out, so two
 * exports of the same data are byte-identical whichever store holds it.
 */
export async function writeExport(
  store: MessageStore,
  sink: NodeJS.WritableStream,
  options: Omit<ExportOptions, "output">,
): Promise<{ counts: ExportCounts; softDeleted: number }> {
  const counts = noCounts();
  let softDeleted = 0;
  await writeLine(sink, headerLine());
  for await (const page of conversationPages(store, options.pageSize, options.user)) {
    for (const conversation of page) {
      if (conversation.deletedAt !== null) softDeleted++;
      await writeConversation(store, sink, conversation, options.pageSize, counts);
    }
  }
  await writeLine(sink, footerLine(counts));
  return { counts, softDeleted };
}

/**
 * Writes one conversation's lines of an export (the conversation, its messages in transcript
 * order, its traces oldest first, its checkpoints newest first) and adds them to `counts`.
 * Header and footer are the caller's. A checkpoint line carries its pending writes and the
 * channel values it references that no line before it in the thread carried, so every value a
 * line references is on it or above it.
 */
export async function writeConversation(
  store: MessageStore,
  sink: NodeJS.WritableStream,
  { lastActivityAt: _derived, ...conversation }: Conversation,
  pageSize: number,
  counts: ExportCounts,
): Promise<void> {
  await writeLine(sink, dataLine("conversation", conversation));
  counts.conversations++;
  for await (const messages of messagePages(store, conversation.id, pageSize)) {
    for (const message of messages) await writeLine(sink, dataLine("message", message));
    counts.messages += messages.length;
  }
  for (const trace of await conversationTraces(store, conversation.id, pageSize)) {
    await writeLine(sink, dataLine("turnTrace", trace));
    counts.turnTraces++;
  }
  const carried: CarriedValues = new Set();
  for await (const checkpoints of checkpointPages(store, conversation.id, pageSize)) {
    for (const stored of checkpoints) {
      const data = checkpointLineData(withoutCarriedValues(stored, carried));
      await writeLine(sink, dataLine("checkpoint", data));
    }
    counts.checkpoints += checkpoints.length;
  }
}

/** `message-store export`: to a file (written to `<file>.partial`, renamed when complete) or stdout. */
export async function exportCommand(
  config: StoreConfigObject,
  options: ExportOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<void> {
  const store = await openStore(config, { create: false });
  try {
    const toFile = options.output !== undefined && options.output !== "-";
    let written: Awaited<ReturnType<typeof writeExport>>;
    if (toFile) {
      const partial = `${options.output}.partial`;
      const file = createWriteStream(partial);
      try {
        written = await writeExport(store, file, options);
        file.end();
        await finished(file);
      } catch (error) {
        file.destroy();
        await rm(partial, { force: true });
        throw error;
      }
      await rename(partial, options.output!);
    } else {
      written = await writeExport(store, io.stdout, options);
    }
    await writeLine(
      io.stderr,
      `exported ${formatRecordCounts(written.counts)} from ${describeStore(config)}${toFile ? ` to ${options.output}` : ""}`,
    );
    const note = hiddenCheckpointsNote(store, written.softDeleted, "exported");
    if (note !== null) await writeLine(io.stderr, note);
  } finally {
    await store.close().catch(() => {});
  }
}
