import type Database from "better-sqlite3";
import { Mutex } from "./mutex.js";
import type { SqliteConnection, SqlRow, SqlStatements, SqlValue } from "./sqlite-connection.js";

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
   * blocking the event loop, so another connection of this process holding the lock across
   * an await could never commit. This class waits `busyTimeoutMs` for the lock itself.
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

  /** Runs `BEGIN …`, retrying while another connection holds the lock, up to the timeout. */
  async #begin(begin: string): Promise<void> {
    const deadline = Date.now() + this.#busyTimeoutMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
      try {
        this.#prepare(begin).run();
        return;
      } catch (error) {
        const busy = (error as { code?: unknown }).code === "SQLITE_BUSY";
        const left = deadline - Date.now();
        if (!busy || left <= 0) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      }
    }
  }

  async #transaction<T>(begin: string, work: (tx: SqlStatements) => Promise<T>): Promise<T> {
    await this.#begin(begin);
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
