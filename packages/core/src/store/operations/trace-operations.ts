import { z } from "zod";
import { fastTrace, fastTraceBatch, MAX_BATCH } from "../../canonical/input-fast-paths.js";
import {
  type AgentTraceOptions,
  AgentTraceOptionsSchema,
  type Page,
  type ReadOptions,
  type TurnTraceQueryInput,
  TurnTraceQuerySchema,
  type UsageBucket,
  type UsageQueryInput,
  UsageQuerySchema,
} from "../../models/queries.js";
import { type TurnTrace, type TurnTraceInput, TurnTraceSchema } from "../../models/turn-trace.js";
import { cursors } from "../../paging/cursor.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import { rejectDuplicateIds } from "../../validation.js";
import type { StoreContext } from "../store-context.js";
import { EMPTY, identity, take } from "./page-results.js";

const TurnTraceBatchSchema = z.array(TurnTraceSchema).max(MAX_BATCH);

export async function storeTurnTrace(ctx: StoreContext, trace: TurnTraceInput): Promise<TurnTrace> {
  const parsed = ctx.parse(TurnTraceSchema, trace, "turn trace", fastTrace);
  const [stored] = await ctx.write("storeTurnTraces", { traces: ctx.records([parsed]) });
  return stored!;
}

export async function storeTurnTraces(
  ctx: StoreContext,
  traces: TurnTraceInput[],
): Promise<TurnTrace[]> {
  const parsed = ctx.parse(TurnTraceBatchSchema, traces, "turn traces", fastTraceBatch);
  rejectDuplicateIds(parsed, "turn traces", ctx.name);
  const records = ctx.records(parsed);
  return records.length === 0 ? [] : ctx.write("storeTurnTraces", { traces: records });
}

export async function getTurnTraceByMessageId(
  ctx: StoreContext,
  messageId: string,
  options?: ReadOptions,
): Promise<TurnTrace | null> {
  return ctx.call("getTurnTraceByMessageId", ctx.readById(messageId, "message id", options));
}

export async function getTurnTracesByAgentId(
  ctx: StoreContext,
  agentId: string,
  options: AgentTraceOptions,
): Promise<Page<TurnTrace>> {
  const key = ctx.id(agentId, "agent id");
  const parsed = ctx.parse(AgentTraceOptionsSchema, options, "trace options");
  return queryTurnTraces(ctx, { ...parsed, agentId: key });
}

export async function queryTurnTraces(
  ctx: StoreContext,
  query: TurnTraceQueryInput,
): Promise<Page<TurnTrace>> {
  const { limit, cursor, userId, tenantId, ...filter } = ctx.parse(
    TurnTraceQuerySchema,
    query,
    "trace query",
  );
  const scope = ctx.filter({ userId, tenantId });
  const after = decodeCursor(cursor, cursors.trace.decode, ctx.name);
  if (!scope) return EMPTY;
  const page = { after, take: take(limit) };
  const rows = await ctx.call("queryTurnTraces", { scope, filter, page });
  return toPage(rows, limit ?? null, identity, cursors.trace.encode);
}

export async function summarizeUsage(
  ctx: StoreContext,
  query: UsageQueryInput,
): Promise<UsageBucket[]> {
  const { userId, tenantId, ...rest } = ctx.parse(UsageQuerySchema, query, "usage query");
  const scope = ctx.filter({ userId, tenantId });
  return scope ? ctx.call("summarizeUsage", { scope, query: rest }) : [];
}
