import { ValidationError } from "../errors.js";
import type { Scope } from "../models/queries.js";

/** Who owns a record, as far as a scope is concerned. */
export interface Owned {
  readonly userId: string | null;
  readonly tenantId: string | null;
}

/** Whether `record` is in `scope`: its own `userId` and `tenantId` decide. */
export function inScope(record: Owned, scope: Scope): boolean {
  return (
    (scope.userId === undefined || record.userId === scope.userId) &&
    (scope.tenantId === undefined || record.tenantId === scope.tenantId)
  );
}

/**
 * The filters of a query run through a view: the query's own `userId`/`tenantId` and the
 * view's, or `null` when they contradict (the answer is then empty, as for a stranger's data).
 */
export function scopedFilter(
  requested: { userId?: string | undefined; tenantId?: string | undefined },
  scope: Scope,
): Scope | null {
  const userId = merge(requested.userId, scope.userId);
  const tenantId = merge(requested.tenantId, scope.tenantId);
  if (userId === CONFLICT || tenantId === CONFLICT) return null;
  const out: { userId?: string; tenantId?: string } = {};
  if (userId !== undefined) out.userId = userId;
  if (tenantId !== undefined) out.tenantId = tenantId;
  return out;
}

const CONFLICT = Symbol("conflict");

function merge(
  requested: string | undefined,
  scoped: string | undefined,
): string | undefined | typeof CONFLICT {
  if (scoped === undefined) return requested;
  if (requested === undefined || requested === scoped) return scoped;
  return CONFLICT;
}

/**
 * The value a record written through a view gets for one owner field: the view's when the record
 * leaves it `null` (or absent), the record's when it agrees; a `ValidationError` otherwise.
 */
export function ownerValue(
  given: string | null | undefined,
  scoped: string | undefined,
  field: "userId" | "tenantId",
  what: string,
  adapter: string,
): string | null {
  if (scoped === undefined || given === scoped) return given ?? null;
  if (given == null) return scoped;
  const who = field === "userId" ? "user" : "tenant";
  throw new ValidationError(
    `invalid ${what} at ${field}: a view for one ${who} can only store that ${who}'s records`,
    [{ path: [field], message: `must be the scoped ${who}` }],
    { adapter },
  );
}

/** `scope` narrowed by one more owner field; another value than the scope's is a `ValidationError`. */
export function narrowScope(
  scope: Scope,
  field: "userId" | "tenantId",
  value: string,
  adapter: string,
): Scope {
  const current = scope[field];
  if (current !== undefined && current !== value) {
    throw new ValidationError(
      `invalid ${field === "userId" ? "user" : "tenant"} id: this view is already confined to ${JSON.stringify(current)}`,
      [{ path: [field], message: "conflicts with the view's scope" }],
      { adapter },
    );
  }
  return { ...scope, [field]: value };
}
