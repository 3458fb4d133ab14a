import type { Client, InValue, Transaction } from "@libsql/client";
import { Mutex } from "./mutex.js";
import type { SqliteConnection, SqlRow, SqlStatements, SqlValue } from "./sqlite-connection.js";
import { waitForLock } from "./wait-for-lock.js";

const args = (params: readonly SqlValue[] = []) => params as InValue[];

/** Statements on a libSQL client or interactive transaction. */
function statementsOf(target: Client | Transaction): SqlStatements {
  return {
    all: async <R extends SqlRow>(sql: string, params?: readonly SqlValue[]) =>
      (await target.execute({ sql, args: args(params) })).rows as unknown as R[],
    run: async (sql: string, params?: readonly SqlValue[]) =>
      (await target.execute({ sql, args: args(params) })).rowsAffected,
    script: (sql: string) => target.executeMultiple(sql),
  };
}

/**
 * `@libsql/client` behind {@link SqliteConnection}, queued on a mutex like the better-sqlite3
 * connection; transactions are the client's interactive ones (`"write"` begins immediately).
 * A local client is opened with one connection (`concurrency: 1`), so the pragmas set at open
 * hold for every statement.
 */
export class LibsqlConnection implements SqliteConnection {
  readonly library = "libsql";
  readonly #client: Client;
  readonly #busyTimeoutMs: number;
  readonly #mutex = new Mutex();
  readonly #direct: SqlStatements;

  constructor(client: Client, busyTimeoutMs: number) {
    this.#client = client;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#direct = statementsOf(client);
  }

  all<R extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
    return this.#mutex.run(() => this.#direct.all<R>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return this.#mutex.run(() => this.#direct.run(sql, params));
  }

  script(sql: string): Promise<void> {
    return this.#mutex.run(() => this.#direct.script(sql));
  }

  write<T>(work: (tx: SqlStatements) => Promise<T>): Promise<T> {
    return this.#mutex.run(() => this.#transaction("write", work));
  }

  read<T>(work: (tx: SqlStatements) => Promise<T>): Promise<T> {
    return this.#mutex.run(() => this.#transaction("read", work));
  }

  close(): Promise<void> {
    return this.#mutex.run(() => this.#client.close());
  }

  /**
   * One transaction. libSQL's local engine may refuse the `COMMIT` with `SQLITE_BUSY` while
   * another connection of the process works on the file; the client then rolls the
   * transaction back, so nothing of it was stored and it runs again from the start (the work
   * reads everything it decides on inside the transaction), until `busy_timeout_ms` passed.
   */
  async #transaction<T>(mode: "write" | "read", work: (tx: SqlStatements) => Promise<T>) {
    let result: T;
    await waitForLock(async () => {
      const tx = await this.#client.transaction(mode);
      try {
        result = await work(statementsOf(tx));
        await tx.commit();
      } finally {
        tx.close();
      }
    }, this.#busyTimeoutMs);
    return result!;
  }
}
