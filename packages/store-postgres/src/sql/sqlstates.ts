/**
 * The SQLSTATEs this package's SQL functions raise (errors.ts maps them to `IntegrityError`), and
 * the PL/pgSQL that raises the rule error.
 */

/** SQLSTATE raised when a message names a conversation that does not exist. */
export const SQLSTATE_MISSING_CONVERSATION = "MS001";
/** SQLSTATE raised when an upsert would move a message to another conversation. */
export const SQLSTATE_MOVED_MESSAGE = "MS002";
/**
 * SQLSTATE raised when a write breaks an ownership or soft-delete rule; its DETAIL is a JSON
 * object naming the rule (see `RULE_TEXT` in errors.ts) and the records.
 */
export const SQLSTATE_RULE = "MS003";

/** Raises MS003 for `rule` (a SQL expression) with the ids of `detail` (SQL expressions). */
export function raiseRule(rule: string, detail: Record<string, string>): string {
  const pairs = Object.entries(detail)
    .map(([k, v]) => `'${k}', ${v}`)
    .join(", ");
  return `RAISE EXCEPTION 'an ownership or soft-delete rule was broken' USING ERRCODE = '${SQLSTATE_RULE}',
      DETAIL = jsonb_build_object('rule', ${rule}, ${pairs})::text;`;
}
