import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { MessageStore, StoredCheckpoint } from "@message-store/core";
import { BatchWriter, type RecordSink } from "../batch-writer.js";
import { CheckpointLineError, checkpointFromLine } from "../checkpoint-record.js";
import { CommandFailedError, UsageError } from "../cli-errors.js";
import { ExportValidator } from "../export-validator.js";
import { formatCountOf, formatRecordCounts } from "../format/numbers.js";
import {
  COUNTED,
  type ExportCounts,
  NdjsonError,
  noCounts,
  parseRecord,
  readLines,
} from "../ndjson.js";
import { openStore } from "../open-store.js";
import { writeLine } from "../output.js";
import { describeStore, type StoreConfigObject } from "../store-spec.js";

export interface ImportOptions {
  /** NDJSON file to read; standard input when absent or `-`. */
  input?: string;
  /** Messages per `storeMessages` call. */
  batchSize: number;
  /** Import an export without records too (it creates an empty store); otherwise an error. */
  allowEmpty?: boolean;
}

/**
 * Reads an export and upserts it, in file order, through the writer that `openWriter` gives; it
 * is called at the first data record, so a file without any (or a bad header) opens no store.
 * Returns the footer's counts (`null` when the file has none) and whether a writer was opened.
 */
export async function readExport(
  input: Readable,
  openWriter: () => Promise<RecordSink>,
): Promise<{ footer: ExportCounts | null; seen: ExportCounts; opened: boolean }> {
  const seen = noCounts();
  let footer: ExportCounts | null = null;
  let first = true;
  let opened: RecordSink | null = null;
  const writer = async () => {
    opened ??= await openWriter();
    return opened;
  };
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
      case "conversation": {
        const w = await writer();
        await w.flush();
        await w.conversation(record.data, `conversation on line ${line}`);
        seen.conversations++;
        break;
      }
      case "message":
        await (await writer()).messages([record.data], () => `line ${line}`);
        seen.messages++;
        break;
      case "turnTrace":
        await (await writer()).trace(record.data, `trace on line ${line}`);
        seen.turnTraces++;
        break;
      case "checkpoint": {
        let checkpoint: StoredCheckpoint;
        try {
          checkpoint = checkpointFromLine(record.data);
        } catch (error) {
          if (error instanceof CheckpointLineError) throw new NdjsonError(line, error.message);
          throw error;
        }
        await (await writer()).checkpoint(checkpoint, `checkpoint on line ${line}`);
        seen.checkpoints++;
        break;
      }
      case "footer": {
        const { type: _footer, ...counts } = record;
        footer = counts;
        break;
      }
    }
    first = false;
  }
  if (first) throw new UsageError("the input is empty (expected a message-store export)");
  const used = opened as RecordSink | null;
  await used?.flush();
  return { footer, seen, opened: used !== null };
}

/** `message-store import [file]`: upserts an NDJSON export (safe to run twice). */
export async function importCommand(
  config: StoreConfigObject,
  options: ImportOptions,
  io: { stdin: Readable; stderr: NodeJS.WritableStream },
): Promise<void> {
  const fromFile = options.input !== undefined && options.input !== "-";
  // Standard input is spooled to a private temporary file, so that it too is read twice: first
  // every record is checked, before any store is opened, so a bad export leaves no target
  // behind on any backend; then it is imported.
  const spool = fromFile ? null : await spoolToFile(io.stdin);
  const source = spool?.path ?? options.input!;
  const input = createReadStream(source);
  await new Promise<void>((resolve, reject) => {
    input.once("open", () => resolve());
    input.once("error", reject);
  }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `cannot read ${options.input}: ${error.code === "ENOENT" ? "no such file" : error.message}`,
    );
  });
  try {
    const checked = await readExport(createReadStream(source), async () => new ExportValidator());
    await importChecked(input, config, options, checked.seen, io);
  } finally {
    input.destroy();
    await spool?.remove();
  }
}

/** Copies `stream` into a new file only this user may read; `remove()` deletes it. */
async function spoolToFile(stream: Readable): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "message-store-import-"));
  const path = join(dir, "stdin.ndjson");
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(stream, createWriteStream(path, { mode: 0o600, flags: "wx" }));
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}

/** The import proper, of an export already checked record by record. */
async function importChecked(
  input: Readable,
  config: StoreConfigObject,
  options: ImportOptions,
  checked: ExportCounts,
  io: { stderr: NodeJS.WritableStream },
): Promise<void> {
  // A JSON target this import creates is removed again if the import fails before storing anything.
  const newJsonFile =
    config.storage === "json" &&
    typeof config.path === "string" &&
    config.path !== ":memory:" &&
    !existsSync(config.path)
      ? config.path
      : null;
  let store: MessageStore | null = null;
  let failed = true;
  try {
    const { footer, seen } = await readExport(input, async () => {
      store = await openStore(config);
      if (checked.checkpoints > 0 && !store.capabilities.checkpoints) {
        throw new CommandFailedError(
          `the export holds ${formatCountOf(checked.checkpoints, "checkpoint")} and ${describeStore(config)} keeps no checkpoints (nothing was imported)`,
        );
      }
      return new BatchWriter(store, options.batchSize);
    });
    if (store === null) {
      if (!options.allowEmpty) {
        throw new CommandFailedError(
          "the export holds no records (no store was opened); pass --allow-empty to import it anyway",
        );
      }
      store = await openStore(config);
    }
    const summary = `imported ${formatRecordCounts(seen)} into ${describeStore(config)}`;
    await writeLine(io.stderr, summary);
    failed = false;
    if (footer === null) {
      throw new CommandFailedError(
        "the export has no footer line: it may be truncated (everything read was imported)",
      );
    }
    const differs = COUNTED.filter((k) => footer[k] !== seen[k]);
    if (differs.length > 0) {
      throw new CommandFailedError(
        `the footer does not match the file: ${differs.map((k) => `${k} ${seen[k]} read, ${footer[k]} announced`).join("; ")}`,
      );
    }
  } finally {
    input.destroy();
    const target = store as MessageStore | null;
    const empty = failed && newJsonFile !== null && target !== null && (await isEmpty(target));
    await target?.close().catch(() => {});
    if (empty) await removeJsonStore(newJsonFile!);
  }
}

async function isEmpty(store: MessageStore): Promise<boolean> {
  try {
    return (await store.listConversations({ limit: 1 })).items.length === 0;
  } catch {
    return false;
  }
}

/** Removes the files of a JSON store (closed) that a failed import created. */
async function removeJsonStore(path: string): Promise<void> {
  for (const suffix of ["", ".journal"]) await rm(`${path}${suffix}`, { force: true });
}
