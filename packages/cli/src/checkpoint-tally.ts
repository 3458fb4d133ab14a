import { createHash, type Hash } from "node:crypto";
import type { MessageStore, StoredCheckpoint } from "@message-store/core";
import { checkpointLineData } from "./checkpoint-record.js";
import { canonicalJson } from "./ndjson.js";
import { checkpointPages } from "./walk.js";

/**
 * What a thread's checkpoints amount to, as a migration compares source and target: how many
 * checkpoints, distinct channel values and pending writes, and a digest of all of them as
 * `listCheckpoints` reads them (same content in the same order: same digest).
 */
export class CheckpointTally {
  checkpoints = 0;
  pendingWrites = 0;
  readonly #values = new Set<string>();
  // Created at the first checkpoint: most conversations of a migration have none.
  #hash: Hash | null = null;

  /** Counts one checkpoint; call in `listCheckpoints` order. */
  add(stored: StoredCheckpoint): void {
    this.checkpoints++;
    this.pendingWrites += stored.writes.length;
    for (const v of stored.values)
      this.#values.add(JSON.stringify([stored.namespace, v.channel, v.version]));
    this.#hash ??= createHash("sha256");
    this.#hash.update(canonicalJson(checkpointLineData(stored))).update("\n");
  }

  get channelValues(): number {
    return this.#values.size;
  }

  /** The digest of what was added (call once, after the last `add`); `""` for nothing. */
  digest(): string {
    return this.#hash?.digest("hex") ?? "";
  }
}

/** What {@link CheckpointTally} yields for a thread, once every checkpoint was added. */
export interface CheckpointSummary {
  checkpoints: number;
  channelValues: number;
  pendingWrites: number;
  digest: string;
}

/** One phrase per difference between a thread's summaries in the source and in the target. */
export function checkpointDifferences(
  source: CheckpointSummary,
  target: CheckpointSummary,
): string[] {
  const diffs: string[] = [];
  for (const [key, noun] of [
    ["checkpoints", "checkpoints"],
    ["channelValues", "channel values"],
    ["pendingWrites", "pending writes"],
  ] as const) {
    if (source[key] !== target[key])
      diffs.push(`${noun} ${source[key]} in source, ${target[key]} in target`);
  }
  if (diffs.length === 0 && source.digest !== target.digest)
    diffs.push("checkpoints differ in content");
  return diffs;
}

/** A thread without checkpoints (one object shared by every such conversation of a migration). */
const NONE: CheckpointSummary = Object.freeze({
  checkpoints: 0,
  channelValues: 0,
  pendingWrites: 0,
  digest: "",
});

/** The summary of a tally after its last checkpoint. */
export function summarize(tally: CheckpointTally): CheckpointSummary {
  const { checkpoints, channelValues, pendingWrites } = tally;
  if (checkpoints === 0) return NONE;
  return { checkpoints, channelValues, pendingWrites, digest: tally.digest() };
}

/** Tallies every checkpoint `store` holds for a thread. */
export async function tallyCheckpoints(
  store: MessageStore,
  conversationId: string,
  pageSize: number,
): Promise<CheckpointSummary> {
  const tally = new CheckpointTally();
  for await (const page of checkpointPages(store, conversationId, pageSize))
    for (const stored of page) tally.add(stored);
  return summarize(tally);
}
