import { isUtf8 } from "node:buffer";
import { type FileHandle, readFile, unlink } from "node:fs/promises";
import { isMessageStoreError } from "@message-store/core";
import { fileCheckpoint, fileValue } from "./checkpoint-codec.js";
import {
  DocumentLoader,
  FORMAT,
  RECORD_ARRAYS,
  type Snapshot,
  VERSION,
} from "./document-loader.js";
import { scanDocument, UnexpectedShape } from "./document-scanner.js";
import { errorCode, openWithMode, storageError, writeFully } from "./fs-util.js";
import { describeSyntaxError, stringifyMessage, stringifyNested } from "./json-text.js";
import { corruptData } from "./record-schemas.js";
import { type SnapshotView, traceAsCaptured } from "./snapshot-view.js";

const valueRow = ({
  conversationId,
  namespace,
  value,
}: SnapshotView["checkpointValues"][number]) => ({
  conversationId,
  namespace,
  ...value,
  value: fileValue(value.value),
});

const writeRow = (r: SnapshotView["checkpointWrites"][number]) => ({
  conversationId: r.conversationId,
  namespace: r.namespace,
  checkpointId: r.checkpointId,
  ...r.write,
  value: fileValue(r.write.value),
});

/* Reading and writing the main file; its layout is described in document-loader.ts. */

/** Reads and validates the main file; `null` when it does not exist. Never writes. */
export async function readSnapshot(path: string): Promise<Snapshot | null> {
  try {
    return await streamDocument(path);
  } catch (error) {
    if (isMessageStoreError(error)) throw error;
    if (!(error instanceof UnexpectedShape)) {
      if (errorCode(error) === "ENOENT") return null;
      throw storageError("read the main file", path, error);
    }
  }
  // Each step gets only what it needs, so the file's bytes and then its text can be collected
  // while the next step runs (together they are twice the file size).
  const file = await readText(path);
  if (file === null) return null;
  return loadDocument(parseText(file, path), path);
}

async function readText(path: string): Promise<{ text: string; bom: number } | null> {
  let buffer: Buffer;
  try {
    buffer = await readFile(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw storageError("read the main file", path, error);
  }
  if (!isUtf8(buffer)) {
    throw corruptData(`main file ${path} is not valid UTF-8 text`, path);
  }
  const bom = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return { text: buffer.toString("utf8", bom), bom };
}

function parseText(file: { text: string; bom: number }, path: string): unknown {
  const { text, bom } = file;
  file.text = "";
  try {
    return JSON.parse(text);
  } catch {
    const e = describeSyntaxError(text);
    throw corruptData(
      `main file ${path} is not valid JSON at line ${e.line}, column ${e.column} (offset ${e.offset + bom}): ${e.problem}`,
      `${path}:${e.line}:${e.column}`,
    );
  }
}

function list(doc: Record<string, unknown>, key: string, path: string): unknown[] {
  const value = doc[key] ?? [];
  if (!Array.isArray(value)) throw corruptData(`"${key}" must be an array`, `${path} ${key}`);
  return value;
}

/** Validates the document against the models and the integrity rules, and indexes it. */
function loadDocument(doc: unknown, path: string): Snapshot {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw corruptData(`main file ${path} is not a ${FORMAT} document (not a JSON object)`, path);
  }
  const d = doc as Record<string, unknown>;
  const loader = new DocumentLoader(path);
  loader.header(d);
  for (const [i, raw] of list(d, "conversations", path).entries()) loader.conversation(raw, i);
  for (const [i, raw] of list(d, "messages", path).entries()) loader.message(raw, i);
  for (const [i, raw] of list(d, "turnTraces", path).entries()) loader.trace(raw, i);
  for (const [i, raw] of list(d, "checkpoints", path).entries()) loader.checkpoint(raw, i);
  for (const [i, raw] of list(d, "checkpointValues", path).entries())
    loader.checkpointValue(raw, i);
  for (const [i, raw] of list(d, "checkpointWrites", path).entries())
    loader.checkpointWrite(raw, i);
  return loader.finish();
}

const ARRAYS = RECORD_ARRAYS;

/**
 * Loads the main file record by record as {@link scanDocument} reads it, so that the file's
 * bytes, its text and its parsed tree are never in memory whole (at 200k messages they were
 * 3.4× the file). A file of another shape (hand-written: other key order, a syntax error, …) is
 * parsed whole by {@link loadDocument} instead, which reports exactly what is wrong.
 */
async function streamDocument(path: string): Promise<Snapshot> {
  const loader = new DocumentLoader(path);
  const header: Record<string, unknown> = {};
  let current = -1;
  await scanDocument(path, (key, value, index) => {
    if (index === null) {
      if (current >= 0 || (ARRAYS as readonly string[]).includes(key))
        throw new UnexpectedShape("a scalar member after the records");
      header[key] = value;
      return;
    }
    const at = ARRAYS.indexOf(key as (typeof ARRAYS)[number]);
    if (at < current || at === -1) throw new UnexpectedShape("records out of order");
    if (current === -1) loader.header(header);
    current = at;
    if (at === 0) loader.conversation(value, index);
    else if (at === 1) loader.message(value, index);
    else if (at === 2) loader.trace(value, index);
    else if (at === 3) loader.checkpoint(value, index);
    else if (at === 4) loader.checkpointValue(value, index);
    else loader.checkpointWrite(value, index);
  });
  if (current === -1) loader.header(header);
  return loader.finish();
}

/**
 * Buffers text and writes it in chunks, so the document is never one giant string. Text is
 * UTF-8-encoded straight into a reused buffer (no joined string, no buffer per chunk). Written
 * data is synced every {@link ChunkedWriter.SIZE} bytes, each time after `quiet()` (no journal
 * append in flight): the journal's fdatasync of a write made meanwhile then waits behind one
 * chunk at most, not behind hundreds of megabytes of the file's dirty pages. A chunk is 256 KiB:
 * with 1 MiB a single write during a compaction of 50,000 messages took 3.4–6.8× its idle time
 * (p50), with 256 KiB 1.5–2.2× (BENCHMARKS.md, "6c"); the compaction takes longer under load.
 */
class ChunkedWriter {
  static readonly SIZE = 1 << 18;
  readonly #buffer = Buffer.allocUnsafe(ChunkedWriter.SIZE);
  #used = 0;
  constructor(
    private readonly handle: FileHandle,
    private readonly quiet: () => Promise<void>,
  ) {}

  async write(text: string): Promise<void> {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    if (this.#used + text.length * 3 > ChunkedWriter.SIZE) {
      await this.flush();
      if (text.length * 3 > ChunkedWriter.SIZE) {
        await this.#written(Buffer.from(text, "utf8"));
        return;
      }
    }
    this.#used += this.#buffer.write(text, this.#used, "utf8");
  }

  async flush(): Promise<void> {
    if (this.#used === 0) return;
    await this.#written(this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }

  async #written(data: Uint8Array): Promise<void> {
    await this.quiet();
    await writeFully(this.handle, data);
    await this.quiet();
    await this.handle.datasync();
  }
}

/**
 * How long the snapshot serialises rows on the event loop before it lets it turn, in ms. A write
 * made meanwhile needs several turns (its mutex, the journal's append and fdatasync), and waits
 * up to one slice at each: with 250 rows a slice (2–3 ms of stringifying messages) a single
 * write during a compaction of 50,000 messages took 4–7× its idle time (BENCHMARKS.md, "6c").
 */
const SLICE_MS = 0.5;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes `"key": [ … ]` as `JSON.stringify(document, null, 2)` would lay it out; `stringify`
 * gives a row's text already indented for its place (see `stringifyNested`).
 */
async function writeArray<T>(
  out: ChunkedWriter,
  key: string,
  rows: readonly T[],
  stringify: (row: T) => string,
  last: boolean,
): Promise<void> {
  let first = true;
  let sliceStart = performance.now();
  for (const row of rows) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
    await out.write(first ? `  "${key}": [\n` : ",\n");
    await out.write(stringify(row));
    first = false;
  }
  const end = last ? "\n" : ",\n";
  await out.write(first ? `  "${key}": []${end}` : `\n  ]${end}`);
}

/**
 * Writes the records of `view` to `tmp` and fsyncs it; resolves to `tmp`, which the caller
 * renames over the main file. Each write to the disk waits for `quiet()` first. The file
 * is created with permission bits `mode` (the main file's: never readable by more users, even
 * for a moment). On failure the temporary file is removed.
 */
export async function writeSnapshotTemp(
  view: SnapshotView,
  generation: number,
  tmp: string,
  mode: number,
  quiet: () => Promise<void> = async () => {},
): Promise<string> {
  let handle: FileHandle | null = null;
  try {
    await unlink(tmp).catch(() => undefined);
    handle = await openWithMode(tmp, "wx", mode);
    const out = new ChunkedWriter(handle, quiet);
    await out.write(
      `{\n  "format": "${FORMAT}",\n  "version": ${VERSION},\n  "generation": ${generation},\n`,
    );
    // Rows sit two levels deep: inside the document, inside their array.
    const pretty = (value: unknown) => stringifyNested(value, 2);
    await writeArray(out, "conversations", view.conversations, pretty, false);
    // The checkpoint arrays are written only when there are checkpoints, so a store without
    // them keeps the file an older version reads.
    const checkpoints =
      view.checkpoints.length + view.checkpointValues.length + view.checkpointWrites.length > 0;
    await writeArray(out, "messages", view.messages, (m) => stringifyMessage(m, 2, 2), false);
    await writeArray(
      out,
      "turnTraces",
      view.traces,
      (t) => pretty(traceAsCaptured(t)),
      !checkpoints,
    );
    if (checkpoints) {
      await writeArray(
        out,
        "checkpoints",
        view.checkpoints,
        (c) => pretty(fileCheckpoint(c)),
        false,
      );
      await writeArray(
        out,
        "checkpointValues",
        view.checkpointValues,
        (r) => pretty(valueRow(r)),
        false,
      );
      await writeArray(
        out,
        "checkpointWrites",
        view.checkpointWrites,
        (r) => pretty(writeRow(r)),
        true,
      );
    }
    await out.write("}\n");
    await out.flush();
    await handle.sync();
    await handle.close();
    return tmp;
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw storageError("write the main file", tmp, error);
  }
}
