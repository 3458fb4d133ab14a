import { ValidationError } from "../errors.js";
import type { Page } from "../models/queries.js";

/**
 * What core hands an adapter for one page: rows strictly after `after` in the list's order
 * (`null`: from the start), at most `take` of them (`null`: all). Core asks for one row more than
 * the caller's limit to learn whether a next page exists; adapters just honour `take`.
 */
export interface PageRequest<K> {
  after: K | null;
  take: number | null;
}

/** Builds the {@link Page} from the `limit + 1` rows an adapter returned. */
export function toPage<R, T>(
  rows: R[],
  limit: number | null,
  item: (row: R) => T,
  cursorOf: (row: R) => string,
): Page<T> {
  if (limit === null || rows.length <= limit) return { items: rows.map(item), nextCursor: null };
  const kept = rows.slice(0, limit);
  return { items: kept.map(item), nextCursor: cursorOf(kept[kept.length - 1]!) };
}

/**
 * In-memory paging over rows already sorted by `compare`: binary-searches the first row after
 * `after` and returns at most `take` rows. For adapters that hold data in memory.
 */
export function sliceAfter<R, K>(
  sorted: readonly R[],
  request: PageRequest<K>,
  keyOf: (row: R) => K,
  compare: (a: K, b: K) => number,
): R[] {
  let start = 0;
  if (request.after !== null) {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(keyOf(sorted[mid]!), request.after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const end = request.take === null ? sorted.length : Math.min(sorted.length, start + request.take);
  return sorted.slice(start, end);
}

/** Decodes a cursor with `decode`; a bad one is a `ValidationError` naming `adapter`. */
export function decodeCursor<K>(
  cursor: string | null | undefined,
  decode: (cursor: string) => K,
  adapter: string,
): K | null {
  if (!cursor) return null;
  try {
    return decode(cursor);
  } catch (error) {
    const e = error as ValidationError;
    throw new ValidationError(e.message.replace(/^\[message-store\] /, ""), e.issues, { adapter });
  }
}
