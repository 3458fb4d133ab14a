import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { BatchWriter } from "../batch-writer.js";
import { CommandFailedError, UsageError } from "../cli-errors.js";
import { type ExportCounts, NdjsonError, parseRecord, readLines } from "../ndjson.js";
import { openStore } from "../open-store.js";
import { writeLine } from "../output.js";
import { describeStore, type StoreConfigObject } from "../store-spec.js";

export interface ImportOptions {
  /** NDJSON file to read; standard input when absent or `-`. */
  input?: string;
  /** Messages per `storeMessages` call. */
  batchSize: number;
}

/**
 * Reads an export and upserts it into `writer`'s store, in file order. Returns the footer's
 * counts, or `null` when the file has none.
 */
export async function readExport(
  input: Readable,
  writer: BatchWriter,
): Promise<{ footer: ExportCounts | null; seen: ExportCounts }> {
  const seen: ExportCounts = { conversations: 0, messages: 0, turnTraces: 0 };
  let footer: ExportCounts | null = null;
  let first = true;
  for await (const { line, text } of readLines(input)) {
    const record = parseRecord(text, line);
    if (first && record.type !== "header") {
      throw new NdjsonError(line, "the first line must be the export header");
    }
    if (footer) throw new NdjsonError(line, "data after the footer line");
    switch (record.type) {
      case "header":
        if (!first) throw new NdjsonError(line, "a second header line");
        break;
      case "conversation":
        await writer.flush();
        await writer.conversation(record.data, `conversation on line ${line}`);
        seen.conversations++;
        break;
      case "message":
        await writer.messages([record.data], () => `line ${line}`);
        seen.messages++;
        break;
      case "turnTrace":
        await writer.trace(record.data, `trace on line ${line}`);
        seen.turnTraces++;
        break;
      case "footer":
        footer = {
          conversations: record.conversations,
          messages: record.messages,
          turnTraces: record.turnTraces,
        };
        break;
    }
    first = false;
  }
  if (first) throw new UsageError("the input is empty (expected a message-store export)");
  await writer.flush();
  return { footer, seen };
}

/** `message-store import [file]`: upserts an NDJSON export (safe to run twice). */
export async function importCommand(
  config: StoreConfigObject,
  options: ImportOptions,
  io: { stdin: Readable; stderr: NodeJS.WritableStream },
): Promise<void> {
  const fromFile = options.input !== undefined && options.input !== "-";
  const input = fromFile ? createReadStream(options.input!) : io.stdin;
  const opened = fromFile
    ? new Promise<void>((resolve, reject) => {
        input.once("open", () => resolve());
        input.once("error", reject);
      })
    : Promise.resolve();
  await opened.catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `cannot read ${options.input}: ${error.code === "ENOENT" ? "no such file" : error.message}`,
    );
  });
  const store = await openStore(config);
  try {
    const writer = new BatchWriter(store, options.batchSize);
    const { footer, seen } = await readExport(input, writer);
    const summary = `imported ${seen.conversations} conversations, ${seen.messages} messages, ${seen.turnTraces} traces into ${describeStore(config)}`;
    await writeLine(io.stderr, summary);
    if (footer === null) {
      throw new CommandFailedError(
        "the export has no footer line: it may be truncated (everything read was imported)",
      );
    }
    const differs = (["conversations", "messages", "turnTraces"] as const).filter(
      (k) => footer[k] !== seen[k],
    );
    if (differs.length > 0) {
      throw new CommandFailedError(
        `the footer does not match the file: ${differs.map((k) => `${k} ${seen[k]} read, ${footer[k]} announced`).join("; ")}`,
      );
    }
  } finally {
    input.destroy();
    await store.close().catch(() => {});
  }
}
