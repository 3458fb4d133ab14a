import { IntegrityError } from "@message-store/core";
import { applyOperation, checkOperation, type MemoryState } from "@message-store/core/memory";
import type { JournalContents } from "./journal.js";
import { decodeLine } from "./operation-codec.js";
import { corruptData } from "./record-schemas.js";

/**
 * Replays the journal over the main file's state, which has `generation`. Lines of an older
 * generation were folded into the main file by a compaction that crashed before dropping them:
 * skipped (and counted). A generation mark one above the current generation starts the lines a
 * compaction that did not finish left in the journal: they follow in order. A line of any other
 * generation, or one that does not apply, is corruption, reported with its line. Resolves to the
 * generation of the last lines, above the main file's after an unfinished compaction.
 */
export function replay(
  state: MemoryState,
  contents: JournalContents | null,
  generation: number,
  path: string,
): { obsolete: number; generation: number } {
  let obsolete = 0;
  let current = generation;
  for (const line of contents?.lines ?? []) {
    const location = `${path}:${line.lineNumber}`;
    const { gen, ops, mark } = decodeLine(line.value, location);
    if (gen < generation) {
      obsolete++;
      continue;
    }
    if (mark && (gen === current || gen === current + 1)) {
      current = gen;
      continue;
    }
    if (gen !== current) {
      throw corruptData(
        `journal line ${line.lineNumber} belongs to generation ${gen} but the main file is at generation ${current} (was the main file replaced by an older copy?)`,
        location,
      );
    }
    for (const op of ops) {
      try {
        checkOperation(state, op);
      } catch (error) {
        if (!(error instanceof IntegrityError)) throw error;
        throw corruptData(
          `journal line ${line.lineNumber} does not apply to the main file: ${error.message}`,
          location,
        );
      }
      applyOperation(state, op);
    }
  }
  return { obsolete, generation: current };
}
