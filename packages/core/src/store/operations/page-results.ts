import type { DeletedCounts, Page } from "../../models/queries.js";

/** The page of a filter that contradicts the view's scope. */
export const EMPTY: Page<never> = Object.freeze({ items: [], nextCursor: null }) as Page<never>;

/** The counts of an erasure whose filter contradicts the view's scope. */
export const NOTHING: DeletedCounts = Object.freeze({
  conversations: 0,
  messages: 0,
  turnTraces: 0,
});

/** Rows to ask the driver for: one more than the page, to know whether another follows. */
export function take(limit: number | undefined): number | null {
  return limit === undefined ? null : limit + 1;
}

export function identity<T>(value: T): T {
  return value;
}
