import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type EmbedFunction,
  type EmbedProgress,
  embedPendingMessages,
  type MessageRole,
  type MessageStoreApi,
} from "@message-store/core";
import cliProgress from "cli-progress";
import { UsageError } from "../cli-errors.js";
import { formatCount, formatCountOf, formatSeconds } from "../format/numbers.js";
import { withStore } from "../open-store.js";
import { writeLine } from "../output.js";
import { describeStore, type StoreConfigObject } from "../store-spec.js";

export interface EmbedOptions {
  /** The module exporting `embed(texts)`, relative to the working directory. */
  module: string;
  batchSize: number;
  roles?: MessageRole[];
  includeFlagged: boolean;
  /** Only this user's / tenant's messages. */
  user?: string;
  tenant?: string;
  /** Draw a bar (stdout is a terminal) rather than plain lines. */
  tty: boolean;
}

/**
 * Imports the embedder: a module whose `embed` export (or default export, a function or an
 * object with `embed`) turns texts into vectors. Throws `UsageError` when there is none.
 */
export async function loadEmbedder(file: string, cwd = process.cwd()): Promise<EmbedFunction> {
  const path = resolve(cwd, file);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`cannot load the embedder module ${file}: ${(error as Error).message}`);
  }
  const fallback = module.default as { embed?: unknown } | ((...args: never[]) => unknown);
  const embed =
    module.embed ?? (typeof fallback === "function" ? fallback : fallback?.embed) ?? undefined;
  if (typeof embed !== "function") {
    throw new UsageError(
      `the embedder module ${file} exports no embed function: export async function embed(texts) { … return vectors }`,
    );
  }
  return embed as EmbedFunction;
}

/** Counts the messages pending embedding (one walk of the queue; nothing is embedded). */
async function countPending(store: MessageStoreApi, options: EmbedOptions): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page = await store.listPendingEmbeddings({
      limit: 1000,
      cursor,
      includeFlagged: options.includeFlagged,
      ...(options.roles ? { roles: options.roles } : {}),
    });
    count += page.items.length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return count;
}

/** A bar on a terminal, a line per second otherwise. */
function progressReporter(io: { stdout: NodeJS.WritableStream }, total: number, tty: boolean) {
  const started = Date.now();
  const rate = (n: number) => Math.round((n * 1000) / Math.max(1, Date.now() - started));
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        format:
          "{bar} {percentage}% | {value}/{total} messages | {rate} msg/s | ETA {eta_formatted}",
        stream: io.stdout,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: 0 });
    return {
      update: (p: EmbedProgress) =>
        bar.update(p.embedded + p.skipped, { rate: rate(p.embedded + p.skipped) }),
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update: (p: EmbedProgress) => {
      const done = p.embedded + p.skipped;
      if (Date.now() - last < 1000 && done < total) return;
      last = Date.now();
      const eta = done > 0 ? ((Date.now() - started) / done) * Math.max(0, total - done) : NaN;
      io.stdout.write(
        `embed: ${formatCount(done)}/${formatCount(total)} messages, ${formatCount(rate(done))} msg/s, ETA ${formatSeconds(eta / 1000)}\n`,
      );
    },
    stop: () => {},
  };
}

/**
 * `message-store embed --store <spec> --module <file>`: embeds every message pending embedding
 * with the module's `embed(texts)`, in batches, with progress. Idempotent and resumable: it only
 * reads pending messages, so running it again embeds what is left (nothing, when all is done).
 */
export async function embedCommand(
  config: StoreConfigObject,
  options: EmbedOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<void> {
  const embed = await loadEmbedder(options.module);
  const started = Date.now();
  await withStore(config, async (opened) => {
    let store: MessageStoreApi = opened;
    if (options.tenant !== undefined) store = store.forTenant(options.tenant);
    if (options.user !== undefined) store = store.forUser(options.user);
    const total = await countPending(store, options);
    await writeLine(io.stdout, `store:   ${describeStore(config)}`);
    await writeLine(io.stdout, `pending: ${formatCountOf(total, "message")} to embed`);
    const progress = progressReporter(io, total, options.tty);
    let result: EmbedProgress;
    try {
      result = await embedPendingMessages(store, {
        embed,
        batchSize: options.batchSize,
        includeFlagged: options.includeFlagged,
        ...(options.roles ? { roles: options.roles } : {}),
        onProgress: progress.update,
      });
    } finally {
      progress.stop();
    }
    const skipped =
      result.skipped > 0
        ? ` (${formatCount(result.skipped)} skipped: their text changed meanwhile)`
        : "";
    await writeLine(
      io.stdout,
      `embedded ${formatCountOf(result.embedded, "message")}${skipped} in ${formatSeconds((Date.now() - started) / 1000, true)}`,
    );
  });
}
