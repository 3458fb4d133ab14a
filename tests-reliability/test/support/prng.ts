/**
 * A seeded PRNG (mulberry32), so a failing run can be replayed: the seed comes from
 * `RELIABILITY_SEED` when set, and every assertion that depends on it prints it.
 */
export interface Rng {
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
}

/** The seed of this run: `RELIABILITY_SEED` or a fresh random one. */
export function runSeed(): number {
  const fromEnv = process.env.RELIABILITY_SEED;
  if (fromEnv !== undefined && fromEnv !== "") return Number(fromEnv) >>> 0;
  return (Math.random() * 2 ** 32) >>> 0;
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, next, int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}
