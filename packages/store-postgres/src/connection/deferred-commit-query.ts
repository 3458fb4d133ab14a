import pg from "pg";

/** The largest row count an Execute message can ask for (an int32; 0 would mean "no limit" and bring the Sync back). */
const ALL_ROWS = 2_147_483_647;

/** The parts of `pg`'s connection this query drives (public methods of `pg.Connection`). */
type Wire = Pick<pg.Connection, "sync">;

/** `pg.Query`'s protocol hooks, called by `pg.Client` (not in `@types/pg`). */
interface QueryHooks {
  handleCommandComplete(message: unknown, connection: Wire): void;
  handleError(error: Error, connection: Wire): void;
}

const NO_SYNC: Wire = { sync() {} };

/**
 * A statement whose commit waits for the caller's word. `pg` normally sends Parse, Bind,
 * Describe, Execute and Sync at once, and the server commits at Sync, whether or not the client
 * is still waiting for the answer. Asking Execute for a row count (as cursors do) makes `pg` send
 * a Flush instead: the server runs the statement and sends its result, then keeps the implicit
 * transaction open until Sync arrives. `onExecuted` is called when the result is complete;
 * {@link DeferredCommitQuery.commit} sends the Sync. A connection dropped before that is a
 * transaction the server can only roll back, whenever it gets to read the end of the stream.
 *
 * Costs one more round trip (the Sync and its ReadyForQuery) and nothing else: same statement,
 * same plan (parallel query does not apply to the store's writes).
 */
export class DeferredCommitQuery extends pg.Query {
  readonly #onExecuted: (query: DeferredCommitQuery) => void;
  #connection: Wire | null = null;

  constructor(config: pg.QueryConfig, onExecuted: (query: DeferredCommitQuery) => void) {
    super({ ...config, rows: ALL_ROWS } as pg.QueryConfig);
    this.#onExecuted = onExecuted;
  }

  /** Commits: sends the Sync the server waits for. Call once, after `onExecuted`. */
  commit(): void {
    this.#connection?.sync();
  }

  handleCommandComplete(message: unknown, connection: Wire): void {
    // The base class records the result and, because of the row count, would Sync right away.
    (pg.Query.prototype as unknown as QueryHooks).handleCommandComplete.call(
      this,
      message,
      NO_SYNC,
    );
    this.#connection = connection;
    this.#onExecuted(this);
  }

  handleError(error: Error, connection: Wire): void {
    // A server error aborted the transaction; the Sync ends it (a rollback) and makes the
    // connection usable again. Any other error means the connection is gone: nothing to send.
    if (error instanceof pg.DatabaseError) connection.sync();
    (pg.Query.prototype as unknown as QueryHooks).handleError.call(this, error, connection);
  }
}
