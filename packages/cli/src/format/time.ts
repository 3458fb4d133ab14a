const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * A point in time given on the command line, as epoch ms: a duration back from `now`
 * (`90m`, `24h`, `7d`, `2w`, `30s`), `now`, an ISO date or date-time (`2025-06-01`,
 * `2025-06-01T12:00:00Z`; without a zone it is read as UTC), or epoch milliseconds. `null` when
 * the text is none of these.
 */
export function parseTimeArg(text: string, now: number = Date.now()): number | null {
  const value = text.trim();
  if (value === "now") return now;
  const duration = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/.exec(value);
  if (duration) return Math.round(now - Number(duration[1]) * UNITS[duration[2]!]!);
  if (/^\d{12,}$/.test(value)) return Number(value);
  if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(value)) {
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(value) && value.length > 10;
    const iso = value.replace(" ", "T") + (hasZone || value.length === 10 ? "" : "Z");
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/** `2025-06-01 09:00:00Z` (UTC, seconds). */
export function formatTimestamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, "Z");
}

/** `09:00:00` (UTC). */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** `2025-06-01` (UTC). */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
