/** Index of the first element whose key is not below `key` (`compare(element, key) >= 0`). */
export function lowerBound<T, K>(
  sorted: readonly T[],
  key: K,
  compare: (element: T, key: K) => number,
): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(sorted[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Inserts `item` after every element that does not sort after it. Appending is the common case
 * (timestamps usually grow), so the last element is checked first and costs O(1).
 */
export function insertSorted<T>(sorted: T[], item: T, compare: (a: T, b: T) => number): void {
  const n = sorted.length;
  if (n === 0 || compare(sorted[n - 1]!, item) <= 0) {
    sorted.push(item);
    return;
  }
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(sorted[mid]!, item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  sorted.splice(lo, 0, item);
}

/** Removes `item` (found by identity, located by binary search on its key). */
export function removeSorted<T>(sorted: T[], item: T, compare: (a: T, b: T) => number): void {
  const n = sorted.length;
  if (n > 0 && sorted[n - 1] === item) {
    sorted.pop();
    return;
  }
  let i = lowerBound(sorted, item, compare);
  while (i < n && sorted[i] !== item && compare(sorted[i]!, item) === 0) i++;
  if (i < n && sorted[i] === item) {
    sorted.splice(i, 1);
    return;
  }
  // Unreachable while keys are unique; a linear scan keeps the index correct regardless.
  const at = sorted.indexOf(item);
  if (at >= 0) sorted.splice(at, 1);
}

/** Removes every element of `items` at once: one pass instead of one splice per element. */
export function removeAllSorted<T>(
  sorted: T[],
  items: readonly T[],
  compare: (a: T, b: T) => number,
): void {
  if (items.length <= 8) {
    for (const item of items) removeSorted(sorted, item, compare);
    return;
  }
  const drop = new Set(items);
  let kept = 0;
  for (const element of sorted) if (!drop.has(element)) sorted[kept++] = element;
  sorted.length = kept;
}
