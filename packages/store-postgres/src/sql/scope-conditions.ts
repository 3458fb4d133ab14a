import type { Scope } from "@message-store/core";
import { encodeNullable, encodeText } from "../nul-codec.js";
import type { Params } from "./params.js";

/**
 * A request's scope inside its statement, on the record's own `user_id` and `tenant_id` (a
 * message's and a trace's are always their conversation's): a record outside is absent for the
 * request, with no read before it.
 */

/**
 * `($u IS NULL OR user_id = $u) AND ($t IS NULL OR tenant_id = $t)`: the scope of a statement on
 * one record or one conversation, as its parameters `user` and `tenant` (placeholders, values
 * from {@link scopeParams}). The key (primary key, `idx_msg_conv`) finds the rows and the
 * condition only filters them, so the plan is the unscoped one, also as the generic plan of a
 * prepared statement: a plain `user_id = $u` would let that plan walk a user's whole
 * `idx_msg_user` and sort it instead (seen at 170 ms for a 50-message context window of a
 * 200k-message user; `plans.test.ts`).
 */
export function ownedBy(user: string, tenant: string, alias = ""): string {
  return `(${user}::text IS NULL OR ${alias}user_id = ${user}::text)
   AND (${tenant}::text IS NULL OR ${alias}tenant_id = ${tenant}::text)`;
}

/** The values of {@link ownedBy}'s parameters: the scope's user and tenant, or NULL. */
export function scopeParams(scope: Scope): [string | null, string | null] {
  return [encodeNullable(scope.userId ?? null), encodeNullable(scope.tenantId ?? null)];
}

/**
 * The scope's owners as conditions of a dynamic statement on many conversations (lists,
 * analytics, search), on table alias `alias`: there a user's or tenant's index is the plan.
 */
export function ownerConditions(scope: Scope, p: Params, alias = ""): string[] {
  const where: string[] = [];
  if (scope.userId !== undefined)
    where.push(`${alias}user_id = ${p.add(encodeText(scope.userId))}`);
  if (scope.tenantId !== undefined) {
    where.push(`${alias}tenant_id = ${p.add(encodeText(scope.tenantId))}`);
  }
  return where;
}
