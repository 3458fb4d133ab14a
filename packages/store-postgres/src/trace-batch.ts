import { IntegrityError, type TurnTrace } from "@message-store/core";
import { batchParam } from "./row-mapping.js";
import type { Statement } from "./sql/params.js";
import { quoteIdent } from "./sql/quote.js";

/**
 * `storeTurnTraces` on PostgreSQL: one statement, `ms_put_turn_traces` (see
 * `sql/trace-batch-function.ts`), all or nothing.
 */

/** The statement for a batch of validated traces in the store's schema. */
export function putTurnTracesStatement(schema: string, traces: readonly TurnTrace[]): Statement {
  return {
    text: `SELECT ${quoteIdent(schema)}.ms_put_turn_traces($1::jsonb) AS result`,
    values: [batchParam(traces)],
  };
}

/**
 * The `IntegrityError` of a trace refused because its message is missing (`found` null) or in
 * the conversation `found` instead of the trace's: worded alike for one trace and a batch.
 */
export function traceRefused(
  trace: Pick<TurnTrace, "id" | "messageId" | "conversationId">,
  found: string | null,
): IntegrityError {
  const q = (id: string) => JSON.stringify(id);
  const why =
    found === null
      ? `message ${q(trace.messageId)} does not exist`
      : `message ${q(trace.messageId)} belongs to another conversation than ${q(trace.conversationId)}`;
  return new IntegrityError(`cannot store turn trace ${q(trace.id)}: ${why}`);
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
    const conversationId = traces.find((t) => t.id === trace)?.conversationId ?? "?";
    throw traceRefused({ id: trace, messageId: message, conversationId }, found);
  }
  const owners = new Map<string, [string | null, string | null]>();
  // The jsonb result arrives with the NUL escape already undone (`column-types.ts`).
  for (const [id, userId, tenantId] of r.stored) owners.set(id, [userId, tenantId]);
  return traces.map((t) => {
    const [userId, tenantId] = owners.get(t.id) ?? [t.userId, t.tenantId];
    return userId === t.userId && tenantId === t.tenantId ? t : { ...t, userId, tenantId };
  });
}
