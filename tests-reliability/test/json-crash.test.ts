import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { JsonMessageStore } from "@message-store/json";
import { describe, expect, it } from "vitest";
import { runAndKill } from "./support/child-process.js";
import { createRng, runSeed } from "./support/prng.js";
import { tempDir } from "./support/temp-dir.js";

const KILLS = 60;
/** Small, so compactions are frequent and a good share of kills lands inside one. */
const THRESHOLD = 24 * 1024;

/** What the crashed files show about the moment of the kill. */
interface CrashState {
  /** `<path>.tmp` or `<path>.compacting.tmp` exists: killed while a new main file was being written. */
  tempFile: boolean;
  /** The journal holds a generation mark above the main file's: killed during a compaction that writes go on through, before its rename. */
  openMark: boolean;
  /** Journal lines of an older generation than the main file: killed after the rename, before the journal was emptied. */
  staleJournal: boolean;
  /** A lock file of the dead writer was left behind. */
  staleLock: boolean;
}

function inspect(path: string): CrashState {
  const head = existsSync(path) ? readFileSync(path, "utf8").slice(0, 200) : "";
  const mainGen = Number(/"generation":\s*(\d+)/.exec(head)?.[1] ?? -1);
  const journal = existsSync(`${path}.journal`) ? readFileSync(`${path}.journal`, "utf8") : "";
  const journalGen = Number(/^\{"gen":(\d+)/.exec(journal)?.[1] ?? Number.NaN);
  const marks = [...journal.matchAll(/^\{"gen":(\d+),"op":"generation"\}$/gm)].map((m) =>
    Number(m[1]),
  );
  return {
    tempFile: existsSync(`${path}.tmp`) || existsSync(`${path}.compacting.tmp`),
    openMark: marks.some((gen) => gen > mainGen),
    staleJournal: journalGen < mainGen,
    staleLock: existsSync(`${path}.lock`),
  };
}

/** Copies the store's files as the crash left them, for a check that leaves the original alone. */
function crashCopy(path: string): string {
  const dir = tempDir("json-crash-copy");
  const base = path.slice(path.lastIndexOf("/") + 1);
  const from = path.slice(0, path.lastIndexOf("/"));
  for (const name of readdirSync(from)) {
    if (name.startsWith(base)) cpSync(join(from, name), join(dir, name));
  }
  return join(dir, base);
}

describe("json crash", () => {
  it(`loses no acknowledged write across ${KILLS} SIGKILLs, including kills during compaction`, async () => {
    const seed = runSeed();
    const rng = createRng(seed);
    const why = (round: number, detail: string) => `seed ${seed}, kill ${round}: ${detail}`;
    const path = join(tempDir("json-crash"), "db.json");
    const conversations = new Set<string>();
    const versions = new Map<string, number>(); // acknowledged message id -> acknowledged version
    const tally = {
      tempFile: 0,
      openMark: 0,
      staleJournal: 0,
      duringCompaction: 0,
      staleLock: 0,
      acks: 0,
    };
    const tally2 = { atStartup: 0, whileWriting: 0 };

    for (let round = 0; round < KILLS; round++) {
      // One kill in four lands while the child is still starting (opening, replaying, finishing
      // an interrupted compaction); the others while it writes.
      const atStartup = rng.next() < 0.25;
      const plan = atStartup
        ? { delayMs: rng.int(0, 350) }
        : { delayMs: rng.int(0, 700), afterLine: "ready" };
      tally2[atStartup ? "atStartup" : "whileWriting"]++;
      const run = await runAndKill(
        "json-crash-writer.mjs",
        [path, String(THRESHOLD), `r${round}-`, String(rng.int(0, 2 ** 31))],
        plan,
      );
      expect(run.signal, why(round, `writer ended on its own: ${run.stderr}`)).toBe("SIGKILL");
      for (const line of run.lines) {
        const [tag, id, what] = line.split(" ");
        if (tag !== "ack" || id === undefined) continue;
        tally.acks++;
        if (what === "conv") conversations.add(id);
        else versions.set(id, Number(what));
      }
      const state = inspect(path);
      if (state.tempFile) tally.tempFile++;
      if (state.openMark) tally.openMark++;
      if (state.staleJournal) tally.staleJournal++;
      if (state.tempFile || state.openMark || state.staleJournal) tally.duringCompaction++;
      if (state.staleLock) tally.staleLock++;

      // Every third round checks a copy, so the next writer has to recover the crashed files itself.
      const target = round % 3 === 2 ? crashCopy(path) : path;
      const store = await JsonMessageStore.open({ path: target }).catch((error: unknown) => {
        throw new Error(why(round, `reopen failed (${JSON.stringify(state)}): ${error}`));
      });
      try {
        for (const id of conversations) {
          expect(await store.getConversation(id), why(round, `conversation ${id}`)).not.toBeNull();
        }
        for (const [id, version] of versions) {
          const m = await store.getMessage(id);
          expect(m, why(round, `acknowledged message ${id} is missing`)).not.toBeNull();
          const stored = Number(/\|v(\d+)\|/.exec(m!.originalContent)?.[1]);
          // A later, unacknowledged upsert may have landed too; an older version may not.
          expect(
            stored,
            why(round, `message ${id} lost its acknowledged update`),
          ).toBeGreaterThanOrEqual(version);
          expect(m!.metadata.version).toBe(stored);
        }
      } finally {
        await store.close();
      }
    }

    console.info(
      `json crash: seed ${seed}, ${KILLS} kills (${tally2.atStartup} at startup, ${tally2.whileWriting} while writing), ` +
        `${tally.duringCompaction} during compaction (${tally.tempFile} with a .tmp file, ` +
        `${tally.openMark} before the rename of one that writes went on through, ` +
        `${tally.staleJournal} with an un-emptied journal), ${tally.staleLock} stale locks taken over, ` +
        `${tally.acks} acknowledged writes, ${versions.size} messages`,
    );
    expect(
      tally.duringCompaction,
      `seed ${seed}: no kill landed during a compaction`,
    ).toBeGreaterThan(0);
    expect(tally.staleLock, `seed ${seed}: no stale lock was taken over`).toBeGreaterThan(0);
    expect(
      versions.size,
      `seed ${seed}: too few acknowledged writes to prove anything`,
    ).toBeGreaterThan(500);
  });
});
