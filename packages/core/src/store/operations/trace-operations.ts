import { z } from "zod";
import { fastTrace, fastTraceBatch, MAX_BATCH } from "../../canonical/input-fast-paths.js";
import type { Page, TurnTraceQueryInput } from "../../models/queries.js";
import {
  AgentTraceOptionsSchema,
  TurnTraceQuerySchema,
  UsageQuerySchema,
} from "../../models/queries.js";
import type { TurnTrace } from "../../models/turn-trace.js";
import { TurnTraceSchema } from "../../models/turn-trace.js";
import { cursors } from "../../paging/cursor.js";
import { rejectDuplicateIds } from "../../validation.js";
import type { TracesApi } from "../contract/traces.js";
import type { Implementation, StoreContext } from "../store-context.js";

const TurnTraceBatchSchema = z.array(TurnTraceSchema).max(MAX_BATCH);

async function queryTraces(
  ctx: StoreContext,
  query: TurnTraceQueryInput,
): Promise<Page<TurnTrace>> {
  const { limit, cursor, userId, tenantId, ...filter } = ctx.parse(
    TurnTraceQuerySchema,
    query,
    "trace query",
  );
  const list = { limit, cursor, userId, tenantId };
  return ctx.list("queryTurnTraces", list, cursors.trace, (t) => t, { filter });
}

/** How the store carries out each method of the family (see `TracesApi`). */
export const TRACE_METHODS = {
  async storeTurnTrace(ctx, trace) {
    const parsed = ctx.parse(TurnTraceSchema, trace, "turn trace", fastTrace);
    const [stored] = await ctx.call("storeTurnTraces", { traces: ctx.records([parsed]) });
    return stored!;
  },

  async storeTurnTraces(ctx, traces) {
    const parsed = ctx.parse(TurnTraceBatchSchema, traces, "turn traces", fastTraceBatch);
    rejectDuplicateIds(parsed, "turn traces", ctx.name);
    const records = ctx.records(parsed);
    return records.length === 0 ? [] : ctx.call("storeTurnTraces", { traces: records });
  },

  async getTurnTraceByMessageId(ctx, messageId, options) {
    return ctx.call("getTurnTraceByMessageId", ctx.readById(messageId, "message id", options));
  },

  async getTurnTracesByAgentId(ctx, agentId, options = {}) {
    const key = ctx.id(agentId, "agent id");
    const parsed = ctx.parse(AgentTraceOptionsSchema, options, "trace options");
    return queryTraces(ctx, { ...parsed, agentId: key });
  },

  queryTurnTraces: (ctx, query = {}) => queryTraces(ctx, query),

  async summarizeUsage(ctx, query) {
    const { userId, tenantId, ...rest } = ctx.parse(UsageQuerySchema, query, "usage query");
    const scope = ctx.filter({ userId, tenantId });
    return scope ? ctx.call("summarizeUsage", { scope, query: rest }) : [];
  },
} satisfies Implementation<TracesApi>;
