import type { TurnTraceFilter } from "../models/queries.js";
import type { TurnTrace } from "../models/turn-trace.js";

/** A filter whose `includeDeleted` may be left out (meaning `false`). */
export type TraceFilterInput = Omit<TurnTraceFilter, "includeDeleted"> & {
  includeDeleted?: boolean;
};

/** The `queryTurnTraces` predicate, for adapters that filter in memory. */
export function matchesTraceFilter(t: TurnTrace, f: TraceFilterInput): boolean {
  if (t.deletedAt !== null && f.includeDeleted !== true) return false;
  if (f.agentId !== undefined && t.agentId !== f.agentId) return false;
  if (f.conversationId !== undefined && t.conversationId !== f.conversationId) return false;
  if (f.userId !== undefined && t.userId !== f.userId) return false;
  if (f.tenantId !== undefined && t.tenantId !== f.tenantId) return false;
  if (f.since !== undefined && t.timestamp < f.since) return false;
  if (f.until !== undefined && t.timestamp >= f.until) return false;
  if (f.minTotalTokens !== undefined && t.totalTokens < f.minTotalTokens) return false;
  if (f.toolName !== undefined && !t.toolTraces.some((x) => x.toolName === f.toolName))
    return false;
  if (f.model !== undefined && !t.llmCalls.some((c) => c.model === f.model)) return false;
  if (f.hasErrors !== undefined && t.errors.length > 0 !== f.hasErrors) return false;
  return true;
}
