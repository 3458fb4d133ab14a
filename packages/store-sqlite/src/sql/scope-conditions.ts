import type { Scope } from "@message-store/core";
import type { SqlValue } from "../connection/sqlite-connection.js";

/** A `WHERE` fragment and its parameters. */
export interface Condition {
  readonly sql: string;
  readonly params: SqlValue[];
}

/** The scope as conditions on a table's `user_id`/`tenant_id` (`alias.` prefixed when given). */
export function scopeCondition(scope: Scope, alias = ""): Condition {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (scope.userId !== undefined) {
    parts.push(`${alias}user_id = ?`);
    params.push(scope.userId);
  }
  if (scope.tenantId !== undefined) {
    parts.push(`${alias}tenant_id = ?`);
    params.push(scope.tenantId);
  }
  return { sql: parts.length === 0 ? "1" : parts.join(" AND "), params };
}

/** Joins conditions with `AND`. */
export function all(...conditions: Condition[]): Condition {
  return {
    sql: conditions.map((c) => `(${c.sql})`).join(" AND "),
    params: conditions.flatMap((c) => c.params),
  };
}

/** A condition; `params` default to none. */
export const cond = (sql: string, ...params: SqlValue[]): Condition => ({ sql, params });

/** `LIMIT` for a page's `take` (`null`: no limit). */
export const limitOf = (take: number | null): string => (take === null ? "" : ` LIMIT ${take}`);
