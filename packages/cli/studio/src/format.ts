// The same numbers as the command line's tables.
export { formatCost, formatCount, formatCountOf, formatMs } from "../../src/format/numbers.js";

/** `2026-11-20 12:00:29` (UTC). */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

/** JSON for display, indented. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
