import { join } from "node:path";
import { SqliteMessageStore } from "@message-store/sqlite";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runAndKill } from "./support/child-process.js";
import { createRng, runSeed } from "./support/prng.js";
import { tempDir } from "./support/temp-dir.js";

const KILLS = 30;

/** `PRAGMA integrity_check` of the file as the crash left it (after WAL recovery). */
function integrity(path: string): string {
  const db = new Database(path);
  try {
    return (db.pragma("integrity_check") as { integrity_check: string }[])
      .map((row) => row.integrity_check)
      .join("; ");
  } finally {
    db.close();
  }
}

describe("sqlite crash", () => {
  for (const synchronous of ["FULL", "NORMAL"] as const) {
    it(`synchronous ${synchronous}: two writers on one file lose no acknowledged write across ${KILLS} rounds of SIGKILLs`, async () => {
      const seed = runSeed();
      const rng = createRng(seed);
      const why = (round: number, detail: string) => `seed ${seed}, round ${round}: ${detail}`;
      const path = join(tempDir("sqlite-crash"), "agent.db");
      const conversations = new Set<string>();
      const versions = new Map<string, number>(); // acknowledged message id -> acknowledged version
      let acks = 0;
      let atStartup = 0;

      for (let round = 0; round < KILLS; round++) {
        // Two processes write the same file at once; each is killed at its own moment, one in
        // four while it is still opening (and maybe migrating or recovering the WAL).
        const runs = await Promise.all(
          ["a", "b"].map((name) => {
            const early = rng.next() < 0.25;
            if (early) atStartup++;
            return runAndKill(
              "sqlite-crash-writer.mjs",
              [path, synchronous, `r${round}${name}-`, String(rng.int(0, 2 ** 31))],
              early
                ? { delayMs: rng.int(0, 300) }
                : { delayMs: rng.int(0, 600), afterLine: "ready" },
            );
          }),
        );
        for (const run of runs) {
          expect(run.signal, why(round, `writer ended on its own: ${run.stderr}`)).toBe("SIGKILL");
          for (const line of run.lines) {
            const [tag, id, what] = line.split(" ");
            if (tag !== "ack" || id === undefined) continue;
            acks++;
            if (what === "conv") conversations.add(id);
            else versions.set(id, Number(what));
          }
        }
        expect(integrity(path), why(round, "integrity_check")).toBe("ok");
        const store = await SqliteMessageStore.open({ path });
        try {
          for (const id of conversations)
            expect(
              await store.getConversation(id),
              why(round, `conversation ${id}`),
            ).not.toBeNull();
          for (const [id, version] of versions) {
            const m = await store.getMessage(id);
            expect(m, why(round, `acknowledged message ${id} is missing`)).not.toBeNull();
            const stored = Number(/\|v(\d+)\|/.exec(m!.originalContent)?.[1]);
            // A later, unacknowledged upsert may have landed too; an older version may not.
            expect(stored, why(round, `message ${id} lost its update`)).toBeGreaterThanOrEqual(
              version,
            );
            expect(m!.metadata.version).toBe(stored);
          }
        } finally {
          await store.close();
        }
      }
      console.info(
        `sqlite crash (${synchronous}): seed ${seed}, ${KILLS * 2} kills (${atStartup} at startup), ${acks} acknowledged writes, ${versions.size} messages`,
      );
      expect(versions.size, `seed ${seed}: too few acknowledged writes`).toBeGreaterThan(300);
    });
  }
});
