import { IntegrityError, type TurnTrace } from "@message-store/core";
import { toJsonParam } from "./nul-codec.js";
import type { Statement } from "./sql/params.js";
import { quoteIdent } from "./sql/quote.js";

/**
 * `storeTurnTraces` on PostgreSQL: one statement, `ms_put_turn_traces` (see
 * `sql/trace-batch-function.ts`), all or nothing.
 */

/** The statement for a batch of validated traces in the store's schema. */
export function putTurnTracesStatement(schema: string, traces: readonly TurnTrace[]): Statement {
  // Copied with push: core's array may be holey, which JSON.stringify serialises more slowly.
  const rows: TurnTrace[] = [];
  for (const t of traces) rows.push(t);
  return {
    text: `SELECT ${quoteIdent(schema)}.ms_put_turn_traces($1::jsonb) AS result`,
    values: [toJsonParam(rows)],
  };
}

type Result =
  | { refused: { trace: string; message: string; found: string | null } }
  | { stored: [string, string | null, string | null][] };

/**
 * The batch as stored (`userId`/`tenantId` filled from the conversation, as the function
 * reports), in input order; a refusal becomes the `IntegrityError` `storeTurnTrace` raises.
 */
export function storedTraces(traces: readonly TurnTrace[], result: unknown): TurnTrace[] {
  const r = result as Result;
  if ("refused" in r) {
    const { trace, message, found } = r.refused;
    const q = (id: string) => JSON.stringify(id);
    const why =
      found === null
        ? `message ${q(message)} does not exist`
        : `message ${q(message)} belongs to another conversation than ${q(
            traces.find((t) => t.id === trace)?.conversationId ?? "?",
          )}`;
    throw new IntegrityError(`cannot store turn trace ${q(trace)}: ${why}`);
  }
  const owners = new Map<string, [string | null, string | null]>();
  // The jsonb result arrives with the NUL escape already undone (`column-types.ts`).
  for (const [id, userId, tenantId] of r.stored) owners.set(id, [userId, tenantId]);
  return traces.map((t) => {
    const [userId, tenantId] = owners.get(t.id) ?? [t.userId, t.tenantId];
    return userId === t.userId && tenantId === t.tenantId ? t : { ...t, userId, tenantId };
  });
}
