const counts = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const dollars = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** `12345` as `12,345` (fixed locale, so output is the same everywhere). */
export function formatCount(n: number): string {
  return counts.format(n);
}

/** A count and its noun, singular for exactly one: `1 conversation`, `12,345 messages`. */
export function formatCountOf(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? "" : "s"}`;
}

/**
 * `1 conversation, 12 messages, 3 traces` (and `, 4 checkpoints` when counted): what an export,
 * import or migration moved.
 */
export function formatRecordCounts(counts: {
  conversations: number;
  messages: number;
  turnTraces: number;
  checkpoints?: number;
}): string {
  return [
    formatCountOf(counts.conversations, "conversation"),
    formatCountOf(counts.messages, "message"),
    formatCountOf(counts.turnTraces, "trace"),
    ...(counts.checkpoints === undefined ? [] : [formatCountOf(counts.checkpoints, "checkpoint")]),
  ].join(", ");
}

/** Milliseconds for a table: `850 ms`, `1.85 s`, `2m 05s`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return formatSeconds(ms / 1000);
}

/** Seconds as `12s`, `3m 05s`, `2h 01m` (with `tenths`, `0.4s` below ten seconds); `?` when unknown. */
export function formatSeconds(seconds: number, tenths = false): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  if (tenths && seconds < 9.95) return `${seconds.toFixed(1)}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * US dollars: `$12.50` from a dollar up; below, at least 4 decimals and at least 2 significant
 * digits (`$0.0123`, `$0.00012`, `$0.000012`), so a tiny cost never reads as zero. `null` (no
 * call was priced) is `—`: unknown, not `$0`.
 */
export function formatCost(usd: number | null): string {
  if (usd === null) return "—";
  if (usd === 0) return "$0";
  const size = Math.abs(usd);
  if (size >= 1) return `${usd < 0 ? "-" : ""}$${dollars.format(size)}`;
  const decimals = Math.min(20, Math.max(4, 1 - Math.floor(Math.log10(size))));
  return `${usd < 0 ? "-" : ""}$${size.toFixed(decimals)}`;
}
