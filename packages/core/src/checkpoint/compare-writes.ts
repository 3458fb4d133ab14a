import { compareIds } from "../paging/ordering.js";

/**
 * The order pending writes are read back in: `taskPath`, then `taskId` (code points), then `idx`
 * (as numbers). LangGraph applies a step's writes in this order (its `writesSortKey`).
 */
export function compareWrites(
  a: { taskPath: string; taskId: string; idx: number },
  b: { taskPath: string; taskId: string; idx: number },
): number {
  return compareIds(a.taskPath, b.taskPath) || compareIds(a.taskId, b.taskId) || a.idx - b.idx;
}
