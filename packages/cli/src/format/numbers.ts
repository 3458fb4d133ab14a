const counts = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const dollars = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** `12345` as `12,345` (fixed locale, so output is the same everywhere). */
export function formatCount(n: number): string {
  return counts.format(n);
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

/** US dollars: `$0.0123` (4 decimals below a dollar, else 2). */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${dollars.format(usd)}`;
}
