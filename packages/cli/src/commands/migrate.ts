import type { MessageStore } from "@message-store/core";
import { BatchWriter } from "../batch-writer.js";
import {
  type CarriedValues,
  hiddenCheckpointsNote,
  withoutCarriedValues,
} from "../checkpoint-record.js";
import {
  type CheckpointSummary,
  CheckpointTally,
  checkpointDifferences,
  summarize,
  tallyCheckpoints,
} from "../checkpoint-tally.js";
import { CommandFailedError, UsageError } from "../cli-errors.js";
import {
  formatCount,
  formatCountOf,
  formatRecordCounts,
  formatSeconds,
} from "../format/numbers.js";
import { canonicalJson, noCounts } from "../ndjson.js";
import { openStore } from "../open-store.js";
import { writeLine } from "../output.js";
import { createProgress, type ProgressState } from "../progress.js";
import { describeStore, type StoreConfigObject } from "../store-spec.js";
import {
  checkpointPages,
  conversationPages,
  countMessages,
  countTraces,
  messagePages,
  tracePages,
  WITH_DELETED,
} from "../walk.js";

export interface MigrateOptions {
  /** Messages read and written per call. */
  batchSize: number;
  /** Draw a progress bar (stdout is a terminal) rather than plain lines. */
  tty: boolean;
  /** Migrate a source without conversations too (otherwise an error: a typo is likelier). */
  allowEmpty?: boolean;
}

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** What the source held for one migrated conversation. */
interface Expected {
  messages: number;
  turnTraces: number;
  checkpoints: CheckpointSummary;
  softDeleted: boolean;
}

const CONVERSATION_PAGE = 100;

const VERIFY_CONCURRENCY = 8;

async function countConversations(store: MessageStore): Promise<number> {
  let total = 0;
  for await (const page of conversationPages(store, 1000)) total += page.length;
  return total;
}

async function holdsCheckpoints(store: MessageStore): Promise<boolean> {
  if (!store.capabilities.checkpoints) return false;
  return (await store.listCheckpoints({ limit: 1 })).items.length > 0;
}

/** Copies every conversation of `source` into `target`; returns what each held in the source. */
async function copyAll(
  source: MessageStore,
  target: MessageStore,
  options: MigrateOptions,
  io: Io,
): Promise<Map<string, Expected>> {
  const state: ProgressState = {
    done: 0,
    total: await countConversations(source),
    messages: 0,
    turnTraces: 0,
  };
  const progress = createProgress({ stream: io.stdout, tty: options.tty, label: "migrate" });
  const onInterrupt = () => {
    progress.stop();
    io.stderr.write(
      "\ninterrupted: every write is an upsert, so running the same command again completes the migration\n",
      () => process.exit(130),
    );
  };
  process.once("SIGINT", onInterrupt);
  const sync = () => {
    state.total = Math.max(state.total, state.done);
    state.messages = writer.written.messages;
    state.turnTraces = writer.written.turnTraces;
  };
  const report = () => {
    sync();
    // No line before the first stored batch, so that none claims "0 messages".
    if (state.messages + state.turnTraces > 0) progress.update(state);
  };
  const writer = new BatchWriter(target, options.batchSize, report);
  const copied = new Map<string, Expected>();
  try {
    for await (const page of conversationPages(source, CONVERSATION_PAGE)) {
      for (const conversation of page) {
        const { id } = conversation;
        await writer.conversation(conversation, `conversation ${JSON.stringify(id)}`);
        const expected = { messages: 0, turnTraces: 0 };
        for await (const messages of messagePages(source, id, options.batchSize)) {
          expected.messages += messages.length;
          await writer.messages(messages, (i) => `message ${JSON.stringify(messages[i]!.id)}`);
        }
        for await (const traces of tracePages(source, { conversationId: id }, options.batchSize)) {
          expected.turnTraces += traces.length;
          for (const trace of traces)
            await writer.trace(trace, `trace ${JSON.stringify(trace.id)}`);
        }
        const tally = new CheckpointTally();
        const carried: CarriedValues = new Set();
        for await (const checkpoints of checkpointPages(source, id, options.batchSize)) {
          for (const stored of checkpoints) {
            tally.add(stored);
            const origin = `checkpoint ${JSON.stringify(stored.id)} of ${JSON.stringify(id)}`;
            await writer.checkpoint(withoutCarriedValues(stored, carried), origin);
          }
        }
        const softDeleted = conversation.deletedAt !== null;
        copied.set(id, { ...expected, checkpoints: summarize(tally), softDeleted });
        state.done++;
        report();
      }
    }
    await writer.flush();
    sync();
    progress.finish(state);
    return copied;
  } catch (error) {
    progress.stop();
    throw error;
  } finally {
    process.removeListener("SIGINT", onInterrupt);
  }
}

/** Counts what `target` holds for each migrated id; returns one line per difference. */
async function verify(target: MessageStore, expected: Map<string, Expected>) {
  const found = noCounts();
  const problems: string[] = [];
  const ids = [...expected.keys()];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const want = expected.get(id)!;
      const exists = (await target.getConversation(id, WITH_DELETED)) !== null;
      const messages = await countMessages(target, id, 1000);
      const turnTraces = await countTraces(target, id, 1000);
      const checkpoints = await tallyCheckpoints(target, id, 100);
      if (exists) found.conversations++;
      found.messages += messages;
      found.turnTraces += turnTraces;
      found.checkpoints += checkpoints.checkpoints;
      const diffs: string[] = [];
      if (!exists) diffs.push("conversation missing");
      if (messages !== want.messages)
        diffs.push(`messages ${want.messages} in source, ${messages} in target`);
      if (turnTraces !== want.turnTraces)
        diffs.push(`traces ${want.turnTraces} in source, ${turnTraces} in target`);
      diffs.push(...checkpointDifferences(want.checkpoints, checkpoints));
      if (diffs.length > 0) problems.push(`${JSON.stringify(id)}: ${diffs.join(", ")}`);
    }
  };
  await Promise.all(Array.from({ length: VERIFY_CONCURRENCY }, worker));
  return { found, problems: problems.sort() };
}

/**
 * `message-store migrate --from <store> --to <store>`: streams every conversation with its
 * messages (batches of `batchSize`, transcript order), traces and checkpoints (with their channel
 * values and pending writes) into the target, by upserts, so an interrupted run is completed by
 * running it again. Then counts what the target holds for the migrated ids (it may hold other
 * data), compares their checkpoints' content, and fails on any difference.
 */
export async function migrateCommand(
  from: StoreConfigObject,
  to: StoreConfigObject,
  options: MigrateOptions,
  io: Io,
): Promise<void> {
  if (canonicalJson(from) === canonicalJson(to))
    throw new UsageError("--from and --to name the same store");
  const started = Date.now();
  const source = await openStore(from, { create: false });
  let target: MessageStore | null = null;
  try {
    if (!options.allowEmpty && (await countConversations(source)) === 0) {
      throw new CommandFailedError(
        `the source ${describeStore(from)} holds no conversations (nothing was written to the target); pass --allow-empty to migrate an empty store`,
      );
    }
    target = await openStore(to);
    if (!target.capabilities.checkpoints && (await holdsCheckpoints(source))) {
      throw new CommandFailedError(
        `the source ${describeStore(from)} holds checkpoints and ${describeStore(to)} keeps none (nothing was written to the target)`,
      );
    }
    await writeLine(io.stdout, `from: ${describeStore(from)}`);
    await writeLine(io.stdout, `to:   ${describeStore(to)}`);
    const expected = await copyAll(source, target, options, io);
    const want = { ...noCounts(), conversations: expected.size };
    for (const e of expected.values()) {
      want.messages += e.messages;
      want.turnTraces += e.turnTraces;
      want.checkpoints += e.checkpoints.checkpoints;
    }
    const seconds = (Date.now() - started) / 1000;
    await writeLine(
      io.stdout,
      `copied ${formatRecordCounts(want)} in ${formatSeconds(seconds, true)}`,
    );
    const { found, problems } = await verify(target, expected);
    const ratio = (k: keyof typeof found) => `${formatCount(found[k])}/${formatCount(want[k])}`;
    const verdict =
      problems.length === 0
        ? "OK"
        : `MISMATCH in ${formatCountOf(problems.length, "conversation")}`;
    await writeLine(
      io.stdout,
      `verify: target holds ${ratio("conversations")} conversations, ${ratio("messages")} messages, ${ratio("turnTraces")} traces, ${ratio("checkpoints")} checkpoints of the migrated ids: ${verdict}`,
    );
    const softDeleted = [...expected.values()].filter((e) => e.softDeleted).length;
    const note = hiddenCheckpointsNote(source, softDeleted, "migrated");
    if (note !== null) await writeLine(io.stdout, note);
    if (problems.length > 0) {
      for (const line of problems.slice(0, 20)) await writeLine(io.stdout, `  ${line}`);
      if (problems.length > 20) await writeLine(io.stdout, `  … and ${problems.length - 20} more`);
      throw new CommandFailedError(
        `verification failed: the target differs from the source in ${formatCountOf(problems.length, "conversation")}`,
      );
    }
  } finally {
    await Promise.allSettled([source.close(), target?.close()]);
  }
}
