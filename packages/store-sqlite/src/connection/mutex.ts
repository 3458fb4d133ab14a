/**
 * A promise-chain mutex: `run` calls start in the order they were made and never overlap.
 * A rejected task does not break the chain. One connection runs one transaction at a time: a
 * statement of another call between two awaits of a transaction would run inside it.
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it has settled. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
