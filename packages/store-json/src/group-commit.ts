import {
  applyResolved,
  type MemoryState,
  type Resolved,
  resolveWrite,
  type Write,
  type WriteResult,
  writeKeys,
} from "@message-store/core/memory";
import type { FilePersistence } from "./file-persistence.js";
import type { Mutex } from "./mutex.js";

interface PendingWrite {
  write: Write;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit: writes that arrive while the journal is being fdatasync'ed wait, and the next
 * commit takes all of them at once — one journal line, one fdatasync — instead of one fdatasync
 * each. With a single writer nothing changes (every group has one write); with concurrent
 * writers (an agent serving many conversations) throughput grows with their number instead of
 * being capped at one write per fdatasync.
 *
 * Each write is resolved by core's engine (`resolveWrite`: the contract's rules and the scope,
 * checked against the state) into the operations that carry it out; those are journaled, then
 * applied (`applyResolved`). A group is the longest run, in call order, of writes whose keys
 * (`writeKeys`) do not overlap, so resolving each against the state before the group and applying
 * them in order gives exactly what committing them one by one would. Journal order is still call
 * order, every write is durable before it is applied and before its call resolves (all the
 * operations of one write are on one line: a trace batch is all or nothing after a crash too), and
 * a failed append fails every write of the group (memory unchanged).
 */
export class GroupCommit {
  readonly #queue: PendingWrite[] = [];
  #scheduled = false;

  constructor(
    private readonly state: MemoryState,
    private readonly persistence: FilePersistence | null,
    private readonly mutex: Mutex,
  ) {}

  /** Resolves, journals and applies `write`; resolves to its answer. */
  write<W extends Write>(write: W): Promise<WriteResult<W>> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ write, resolve: resolve as (r: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    void this.mutex.run(() => this.#commitNext());
  }

  #takeGroup(): PendingWrite[] {
    // A lone write shares its commit with nothing: its keys (two strings per message of a
    // batch) need not be built.
    if (this.#queue.length === 1) return [this.#queue.shift()!];
    const group: PendingWrite[] = [];
    const seen = new Set<string>();
    while (this.#queue.length > 0) {
      const keys = writeKeys(this.state, this.#queue[0]!.write);
      if (keys === null) {
        if (group.length === 0) group.push(this.#queue.shift()!);
        break;
      }
      if (keys.some((k) => seen.has(k))) break;
      for (const k of keys) seen.add(k);
      group.push(this.#queue.shift()!);
    }
    return group;
  }

  async #commitNext(): Promise<void> {
    this.#scheduled = false;
    const group = this.#takeGroup();
    if (this.#queue.length > 0) this.#schedule();
    const accepted: { pending: PendingWrite; resolved: Resolved<unknown> }[] = [];
    for (const pending of group) {
      try {
        accepted.push({ pending, resolved: resolveWrite(this.state, pending.write) });
      } catch (error) {
        pending.reject(error);
      }
    }
    const journaled = accepted.flatMap((a) => a.resolved.ops);
    let failure: { error: unknown } | null = null;
    if (journaled.length > 0 && this.persistence) {
      try {
        await this.persistence.commit(journaled);
      } catch (error) {
        failure = { error };
      }
    }
    for (const { pending, resolved } of accepted) {
      if (resolved.ops.length > 0 && failure) {
        pending.reject(failure.error);
        continue;
      }
      try {
        pending.resolve(applyResolved(this.state, resolved));
      } catch (error) {
        // Not expected (applying a resolved write cannot fail), but never leave a call hanging.
        pending.reject(error);
      }
    }
    if (journaled.length > 0 && !failure) this.persistence?.afterCommit();
  }
}
