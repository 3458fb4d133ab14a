import type { Message } from "../models/message.js";
import { compareIds } from "../paging/ordering.js";
import { insertSorted, lowerBound } from "./sorted-array.js";

/** Pending embedding: live, without an embedding (role and flag are the query's filters). */
export function isPending(m: Message): boolean {
  return m.embedding === null && m.deletedAt === null;
}

const SLACK = 1024;

/**
 * The ids of messages pending embedding, in code-point order, for `listPendingEmbeddings`.
 * Built on first use (a store whose embedding queue is never read pays nothing) and kept up to
 * date on every message change after that. `order` may still hold ids that stopped being pending
 * (taking them out would cost a splice per embedded message); reads skip them, and they are
 * swept out once they outnumber the pending ones, so the cost stays linear.
 */
export class PendingIndex {
  /** Exactly the pending ids. */
  readonly #pending = new Set<string>();
  /** Sorted; a superset of `#pending`, no duplicates. */
  #order: string[] = [];
  readonly #inOrder = new Set<string>();

  constructor(messages: Iterable<Message>) {
    for (const m of messages) if (isPending(m)) this.#pending.add(m.id);
    this.#order = [...this.#pending].sort(compareIds);
    for (const id of this.#order) this.#inOrder.add(id);
  }

  /** Records the current state of a message (after it was stored or changed). */
  update(m: Message): void {
    if (!isPending(m)) {
      this.#pending.delete(m.id);
      return;
    }
    this.#pending.add(m.id);
    if (!this.#inOrder.has(m.id)) {
      insertSorted(this.#order, m.id, compareIds);
      this.#inOrder.add(m.id);
    }
  }

  /** Records that a message is gone. */
  remove(id: string): void {
    this.#pending.delete(id);
  }

  /**
   * Pending ids after `after` in order, passed to `accept` until it has taken `take` (`null`:
   * all); `accept` says whether it kept the id.
   */
  scan(after: string | null, take: number | null, accept: (id: string) => boolean): void {
    if (this.#order.length > 2 * this.#pending.size + SLACK) this.#sweep();
    let kept = 0;
    const start =
      after === null
        ? 0
        : lowerBound(this.#order, after, (id, key) => (compareIds(id, key) <= 0 ? -1 : 1));
    for (let i = start; i < this.#order.length && (take === null || kept < take); i++) {
      const id = this.#order[i]!;
      if (this.#pending.has(id) && accept(id)) kept++;
    }
  }

  #sweep(): void {
    this.#order = this.#order.filter((id) => this.#pending.has(id));
    this.#inOrder.clear();
    for (const id of this.#order) this.#inOrder.add(id);
  }
}
