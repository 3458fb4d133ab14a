/** The Levenshtein distance of two strings (insertions, deletions and substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `name` (ignoring case) if it is a likely typo of it: at most two
 * edits, or a third of the name's length for longer names; `null` otherwise. Ties go to the
 * first candidate.
 */
export function closestName(name: string, candidates: Iterable<string>): string | null {
  const wanted = name.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const d = distance(wanted, candidate.toLowerCase());
    if (d <= limit && (best === null || d < best.distance)) best = { candidate, distance: d };
  }
  return best?.candidate ?? null;
}
