import type { SqlValue } from "../connection/sqlite-connection.js";
import type { Table } from "./columns.js";

/** `INSERT … ON CONFLICT (key) DO UPDATE` of every column: the upsert of a table's records. */
export function upsertSql(table: Table<never>): string {
  const names = Object.keys(table.columns);
  const updates = names.filter((n) => n !== table.key).map((n) => `${n} = excluded.${n}`);
  return `INSERT INTO ${table.name} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")}) ON CONFLICT (${table.key}) DO UPDATE SET ${updates.join(", ")}`;
}

/** The parameters of {@link upsertSql} for one record. */
export function upsertParams<R>(table: Table<R>, record: R): SqlValue[] {
  return Object.values(table.columns).map((of) => of(record));
}

/** `DELETE` of one record by key. */
export function deleteSql(table: Table<never>): string {
  return `DELETE FROM ${table.name} WHERE ${table.key} = ?`;
}

/** `?, ?, …` for a list of `n` parameters. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => "?").join(", ");
