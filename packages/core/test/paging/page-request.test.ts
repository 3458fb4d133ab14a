import { describe, expect, it } from "vitest";
import { compareMessageKeys, type MessageKey, sliceAfter } from "../../src/adapter.js";
import { toPage } from "../../src/paging/page-request.js";

const rows: MessageKey[] = [
  { timestamp: 1, sequence: 1 },
  { timestamp: 2, sequence: 2 },
  { timestamp: 2, sequence: 3 },
  { timestamp: 5, sequence: 4 },
];
const slice = (after: MessageKey | null, take: number | null) =>
  sliceAfter(rows, { after, take }, (r) => r, compareMessageKeys);

describe("sliceAfter", () => {
  it("returns everything from the start when after and take are null", () => {
    expect(slice(null, null)).toEqual(rows);
    expect(slice(null, 2)).toEqual(rows.slice(0, 2));
    expect(slice(null, 0)).toEqual([]);
  });

  it("starts strictly after an existing key", () => {
    expect(slice({ timestamp: 2, sequence: 2 }, null)).toEqual(rows.slice(2));
    expect(slice({ timestamp: 2, sequence: 3 }, 1)).toEqual([rows[3]]);
    expect(slice({ timestamp: 5, sequence: 4 }, 10)).toEqual([]);
  });

  it("starts after a key that is no longer present (row deleted between pages)", () => {
    expect(slice({ timestamp: 2, sequence: 2.5 }, null)).toEqual(rows.slice(2));
    expect(slice({ timestamp: 0, sequence: 0 }, null)).toEqual(rows);
    expect(slice({ timestamp: 9, sequence: 0 }, null)).toEqual([]);
  });

  it("works on an empty list and does not mutate the input", () => {
    expect(sliceAfter([], { after: rows[0]!, take: 3 }, (r) => r, compareMessageKeys)).toEqual([]);
    const copy = structuredClone(rows);
    slice(rows[1]!, 1);
    expect(rows).toEqual(copy);
  });
});

describe("toPage", () => {
  const item = (r: { v: number }) => r.v;
  const cursor = (r: { v: number }) => `after-${r.v}`;
  const data = [{ v: 1 }, { v: 2 }, { v: 3 }];

  it("has no next cursor when the limit is null or not exceeded", () => {
    expect(toPage(data, null, item, cursor)).toEqual({ items: [1, 2, 3], nextCursor: null });
    expect(toPage(data, 3, item, cursor)).toEqual({ items: [1, 2, 3], nextCursor: null });
    expect(toPage([], 5, item, cursor)).toEqual({ items: [], nextCursor: null });
  });

  it("keeps limit rows and points the cursor at the last kept row when one more came back", () => {
    expect(toPage(data, 2, item, cursor)).toEqual({ items: [1, 2], nextCursor: "after-2" });
    expect(toPage(data, 1, item, cursor)).toEqual({ items: [1], nextCursor: "after-1" });
  });
});
