const count = new Intl.NumberFormat("en-US");

/** `12,345`. */
export function formatCount(n: number): string {
  return count.format(n);
}

/** `$0.0059` (four decimals below a dollar, two above). */
export function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** `420 ms`, `3.12 s`, `2.5 min`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** `2026-11-20 12:00:29` (UTC). */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

/** `12:00:29` (UTC). */
export function formatClock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** JSON for display, indented. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
