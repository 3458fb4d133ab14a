/** A value bound to a `?` parameter, or read back from a column. */
export type SqlValue = string | number | bigint | Uint8Array | null;

/** A row as the driver library returns it: column name to value. */
export type SqlRow = Record<string, SqlValue>;

/** The statements of one transaction (or of the connection, outside one). */
export interface SqlStatements {
  /** The rows of one query, in the order the query gives. */
  all<R extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<R[]>;
  /** Runs one statement; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /** Runs a script of several statements without parameters (schema steps). */
  script(sql: string): Promise<void>;
}

/**
 * What the adapter needs from a SQLite library: statements inside a write transaction (one
 * writer at a time, in this process and across processes), statements inside a read
 * transaction (one consistent snapshot), schema scripts, and close. One implementation per
 * library (better-sqlite3, libSQL); the adapter's SQL is the same on all of them. `all` and `run`
 * on the connection itself run one statement on its own (atomic, a snapshot of its own), queued
 * behind the transactions of this connection.
 */
export interface SqliteConnection extends SqlStatements {
  /** Which library runs it (`"better-sqlite3"`, `"libsql"`), shown in errors and stats. */
  readonly library: string;
  /**
   * Runs `work` inside a write transaction that holds the database's write lock from its first
   * statement (`BEGIN IMMEDIATE`), commits when it resolves and rolls back when it rejects.
   * Transactions of this connection run one after another.
   */
  write<T>(work: (tx: SqlStatements) => Promise<T>): Promise<T>;
  /** Runs `work` inside a read transaction: every statement sees the same snapshot. */
  read<T>(work: (tx: SqlStatements) => Promise<T>): Promise<T>;
  /** Closes the connection; statements after it reject. */
  close(): Promise<void>;
}
