import { insertSorted, removeAllSorted } from "./sorted-array.js";

/** Rows grouped by a key (an agent, a user, a tenant), each group kept sorted by `compare`. */
export class SortedGroups<T> {
  readonly #groups = new Map<string, T[]>();

  constructor(private readonly compare: (a: T, b: T) => number) {}

  /** The group of `key`, sorted; empty when there is none. */
  get(key: string): readonly T[] {
    return this.#groups.get(key) ?? [];
  }

  /** Adds a row; `sorted: false` appends and leaves sorting to {@link sortAll}. */
  add(key: string, row: T, sorted: boolean): void {
    let group = this.#groups.get(key);
    if (!group) {
      group = [];
      this.#groups.set(key, group);
    }
    if (sorted) insertSorted(group, row, this.compare);
    else group.push(row);
  }

  /** Removes rows (by identity) from one group; an emptied group is dropped. */
  remove(key: string, rows: readonly T[]): void {
    const group = this.#groups.get(key);
    if (!group) return;
    removeAllSorted(group, rows, this.compare);
    if (group.length === 0) this.#groups.delete(key);
  }

  sortAll(): void {
    for (const group of this.#groups.values()) group.sort(this.compare);
  }
}
