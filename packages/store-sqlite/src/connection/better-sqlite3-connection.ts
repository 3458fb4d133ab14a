import type Database from "better-sqlite3";
import { Mutex } from "./mutex.js";
import type { SqliteConnection, SqlRow, SqlStatements, SqlValue } from "./sqlite-connection.js";
import { waitForLock } from "./wait-for-lock.js";

type Statement = Database.Statement<unknown[], unknown>;

/**
 * better-sqlite3 behind {@link SqliteConnection}: synchronous calls on one connection, wrapped
 * in promises, prepared statements cached by their text. Transactions of this process are
 * queued on a mutex; `BEGIN IMMEDIATE` takes the file's write lock (waiting up to the
 * connection's `busy_timeout` for another process).
 */
export class BetterSqlite3Connection implements SqliteConnection {
  readonly library = "better-sqlite3";
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Statement>();
  readonly #mutex = new Mutex();
  readonly #direct: SqlStatements = {
    all: async <R extends SqlRow>(sql: string, params: readonly SqlValue[] = []) =>
      this.#prepare(sql).all(...params) as R[],
    run: async (sql: string, params: readonly SqlValue[] = []) =>
      this.#prepare(sql).run(...params).changes,
    script: async (sql: string) => {
      this.#db.exec(sql);
    },
  };

  readonly #busyTimeoutMs: number;

  /**
   * `db` must have a busy timeout of 0: better-sqlite3 would wait for a lock synchronously,
   * blocking the event loop; this class waits `busyTimeoutMs` for the lock itself
   * (`waitForLock`).
   */
  constructor(db: Database.Database, busyTimeoutMs: number) {
    this.#db = db;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  all<R extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
    return this.#mutex.run(() => this.#direct.all<R>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return this.#mutex.run(() => this.#direct.run(sql, params));
  }

  write<T>(work: (tx: SqlStatements) => Promise<T>): Promise<T> {
    return this.#mutex.run(() => this.#transaction("BEGIN IMMEDIATE", work));
  }

  read<T>(work: (tx: SqlStatements) => Promise<T>): Promise<T> {
    return this.#mutex.run(() => this.#transaction("BEGIN", work));
  }

  script(sql: string): Promise<void> {
    return this.#mutex.run(() => this.#direct.script(sql));
  }

  close(): Promise<void> {
    return this.#mutex.run(() => {
      this.#statements.clear();
      this.#db.close();
    });
  }

  async #transaction<T>(begin: string, work: (tx: SqlStatements) => Promise<T>): Promise<T> {
    await waitForLock(() => this.#prepare(begin).run(), this.#busyTimeoutMs);
    let result: T;
    try {
      result = await work(this.#direct);
    } catch (error) {
      if (this.#db.inTransaction) this.#prepare("ROLLBACK").run();
      throw error;
    }
    this.#prepare("COMMIT").run();
    return result;
  }

  #prepare(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
