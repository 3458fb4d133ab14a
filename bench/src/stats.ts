/**
 * Latency statistics. Percentiles use the nearest-rank method on sorted samples, so p99 of 100
 * samples is the 99th smallest (never an interpolated value that no call took).
 */

/** Summary of a set of latency samples, in milliseconds. */
export interface Stat {
  /** Number of samples. */
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** The `q` quantile (0 < q ≤ 1) of ascending `sorted` by nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Median, p99, mean, min and max of `samples` (milliseconds). */
export function summarize(samples: readonly number[]): Stat {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Milliseconds `fn` took. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Samples two implementations of the same call, alternating which goes first on every
 * iteration, so that drift (a checkpoint, autovacuum, another tenant of the machine) hits both
 * alike. `make(i)` returns the pair of calls for iteration `i`.
 */
export async function sampleInterleaved(
  iterations: number,
  make: (i: number) => { ours: () => Promise<unknown>; raw: () => Promise<unknown> },
  onIteration?: () => void,
): Promise<{ ours: number[]; raw: number[] }> {
  const ours: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const pair = make(i);
    if (i % 2 === 0) {
      ours.push(await timed(pair.ours));
      raw.push(await timed(pair.raw));
    } else {
      raw.push(await timed(pair.raw));
      ours.push(await timed(pair.ours));
    }
    onIteration?.();
  }
  return { ours, raw };
}

/** Number formatting for the report: 3 significant digits, thousands separators above 1000. */
export function fmt(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  if (!Number.isFinite(value)) return "∞";
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs === 0) return "0";
  return Number(value.toPrecision(digits)).toString();
}

/**
 * {@link sampleInterleaved} for any number of systems: on iteration `i` they run one after
 * another starting with system `i mod k`, so each goes first, second… equally often.
 * `make(i)` returns one call per system, in a fixed order; the samples come back in that order.
 */
export async function sampleRotating(
  iterations: number,
  make: (i: number) => (() => Promise<unknown>)[],
  onIteration?: () => void,
): Promise<number[][]> {
  let samples: number[][] = [];
  for (let i = 0; i < iterations; i++) {
    const calls = make(i);
    if (i === 0) samples = calls.map(() => []);
    for (let k = 0; k < calls.length; k++) {
      const s = (i + k) % calls.length;
      samples[s]!.push(await timed(calls[s]!));
    }
    onIteration?.();
  }
  return samples;
}
