import type { TurnTraceQueryInput } from "@message-store/core";
import type { Context } from "hono";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { WITH_DELETED } from "../../walk.js";
import type { AgentList, TraceList, TurnView } from "../api-types.js";
import { boolParam, intParam, limitParam, textParam } from "../params.js";
import type { StudioDeps } from "../studio-deps.js";
import { messageView, traceSummary } from "../views.js";

/** Turns read to list the agents seen recently (the contract has no list of agents). */
export const AGENT_SCAN = 500;

/** The `queryTurnTraces` filters given as query parameters (absent ones are left out). */
export function traceFilter(c: Context): Omit<TurnTraceQueryInput, "limit" | "cursor"> {
  const filter: Omit<TurnTraceQueryInput, "limit" | "cursor"> = {};
  const text = { agent: "agentId", user: "userId", conversation: "conversationId" } as const;
  for (const [param, key] of Object.entries(text)) {
    const value = textParam(c, param);
    if (value !== undefined) filter[key] = value;
  }
  const model = textParam(c, "model");
  if (model !== undefined) filter.model = model;
  const tool = textParam(c, "tool");
  if (tool !== undefined) filter.toolName = tool;
  const since = intParam(c, "since", { min: 0, max: 8.64e15 });
  if (since !== undefined) filter.since = since;
  const until = intParam(c, "until", { min: 0, max: 8.64e15 });
  if (until !== undefined) filter.until = until;
  const minTokens = intParam(c, "minTokens", { min: 0, max: Number.MAX_SAFE_INTEGER });
  if (minTokens !== undefined) filter.minTotalTokens = minTokens;
  const errors = boolParam(c, "errors");
  if (errors !== undefined) filter.hasErrors = errors;
  return filter;
}

/**
 * `GET /api/traces`: turns newest first (`queryTurnTraces`), filtered by `agent`, `user`,
 * `conversation`, `model`, `tool`, `since`, `until`, `minTokens`, `errors`; paged (`limit`
 * default 50, at most 500).
 * `GET /api/turns/:messageId`: the whole trace of a turn and its message (two calls; 404 when
 * the message has no trace).
 * `GET /api/agents`: the distinct agents of the newest {@link AGENT_SCAN} turns.
 */
export function traceRoutes({ store }: StudioDeps): Hono {
  return new Hono()
    .get("/traces", async (c) => {
      const cursor = textParam(c, "cursor");
      const page = await store.queryTurnTraces({
        ...traceFilter(c),
        limit: limitParam(c, 50, 500),
        cursor: cursor ?? null,
      });
      const body: TraceList = { items: page.items.map(traceSummary), nextCursor: page.nextCursor };
      return c.json(body);
    })
    .get("/turns/:messageId", async (c) => {
      const messageId = c.req.param("messageId");
      const [trace, message] = await Promise.all([
        store.getTurnTraceByMessageId(messageId, WITH_DELETED),
        store.getMessage(messageId, WITH_DELETED),
      ]);
      if (trace === null) throw new HTTPException(404, { message: "this message has no trace" });
      const body: TurnView = {
        trace,
        summary: traceSummary(trace),
        message: message === null ? null : messageView(message),
      };
      return c.json(body);
    })
    .get("/agents", async (c) => {
      const page = await store.queryTurnTraces({ limit: AGENT_SCAN });
      const agents = [...new Set(page.items.map((t) => t.agentId))].sort();
      const body: AgentList = { agents, scannedTurns: page.items.length };
      return c.json(body);
    });
}
