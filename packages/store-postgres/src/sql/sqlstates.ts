/**
 * The SQLSTATEs this package's SQL functions raise (refusals.ts maps them to `IntegrityError`), and
 * the PL/pgSQL that raises the rule error.
 */

/** SQLSTATE raised when a message names a conversation that does not exist. */
export const SQLSTATE_MISSING_CONVERSATION = "MS001";
/** SQLSTATE raised when an upsert would move a message to another conversation. */
export const SQLSTATE_MOVED_MESSAGE = "MS002";
/**
 * SQLSTATE raised when a write breaks an ownership or soft-delete rule; its DETAIL is a JSON
 * object naming the rule (see `refusals.ts`) and the records.
 */
export const SQLSTATE_RULE = "MS003";

/** `'k1', v1, 'k2', v2, …`: the arguments of `jsonb_build_object` for `detail`. */
function detailPairs(detail: Record<string, string>): string {
  return Object.entries(detail)
    .map(([k, v]) => `'${k}', ${v}`)
    .join(", ");
}

/** Raises MS003 for `rule` (a SQL expression) with the ids of `detail` (SQL expressions). */
export function raiseRule(rule: string, detail: Record<string, string>): string {
  return `RAISE EXCEPTION 'an ownership or soft-delete rule was broken' USING ERRCODE = '${SQLSTATE_RULE}',
      DETAIL = jsonb_build_object('rule', ${rule}, ${detailPairs(detail)})::text;`;
}

/**
 * `ms_refuse(rule, key, value, …)`: raises MS003 like {@link raiseRule}, as an expression (it
 * "returns" boolean), so that a plain statement can refuse inside its own `WHERE` (see
 * {@link refuse}). Declared IMMUTABLE, which it is (the same arguments always raise the same
 * error), and its call site passes plain text: Citus refuses any other function in the `WHERE`
 * of an `ON CONFLICT`, and the planner never folds it, since its arguments name columns.
 */
export function refuseFunction(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_refuse(p_rule text, VARIADIC p_detail text[])
RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
  RAISE EXCEPTION 'an ownership or soft-delete rule was broken' USING ERRCODE = '${SQLSTATE_RULE}',
    DETAIL = (jsonb_build_object('rule', p_rule) || jsonb_object(p_detail))::text;
END
$fn$;`;
}

/** A call of `ms_refuse` (schema `s`) for `rule` (an SQL string literal) with the ids of `detail`. */
export function refuse(s: string, rule: string, detail: Record<string, string>): string {
  return `${s}.ms_refuse(${rule}, ${detailPairs(detail)})`;
}
