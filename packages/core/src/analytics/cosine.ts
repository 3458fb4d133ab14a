/**
 * Cosine similarity of two vectors of the same length; 0 when either has zero norm.
 * Returns null when the lengths differ (such messages are skipped by search).
 */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number | null {
  if (a.length !== b.length) return null;
  // Scale by the largest component first so squares neither overflow (1e200) nor underflow (1e-160).
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < a.length; i++) {
    sa = Math.max(sa, Math.abs(a[i]!));
    sb = Math.max(sb, Math.abs(b[i]!));
  }
  if (sa === 0 || sb === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! / sa;
    const y = b[i]! / sb;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return Math.min(1, Math.max(-1, dot / Math.sqrt(na * nb)));
}
