import { Hono } from "hono";
import type { ExpensiveTurns, UsageView } from "../api-types.js";
import { badRequest, limitParam, textParam, windowParams } from "../params.js";
import type { StudioDeps } from "../studio-deps.js";
import { traceSummary } from "../views.js";

const DAY = 86_400_000;
/** Most buckets one chart asks for (a year of hours). */
const MAX_BUCKETS = 366 * 24;
/** Turns `GET /api/usage/expensive` reads at most: one bounded page, newest first. */
export const EXPENSIVE_SCAN = 2000;

/**
 * `GET /api/usage?since&until&bucket=hour|day&agent&user`: `summarizeUsage` over `[since, until)`
 * (default: the last 7 days by hour).
 * `GET /api/usage/expensive?since&until&agent&user&limit=10`: the costliest turns (by cost, then
 * tokens) among the newest {@link EXPENSIVE_SCAN} of the window, from one `queryTurnTraces` page;
 * `truncated` says the window held more. The contract cannot order traces by cost.
 */
export function usageRoutes({ store }: StudioDeps): Hono {
  return new Hono()
    .get("/", async (c) => {
      const { since, until } = windowParams(c, 7 * DAY);
      const bucket = textParam(c, "bucket") ?? "hour";
      if (bucket !== "hour" && bucket !== "day") throw badRequest(`"bucket" must be hour or day`);
      if ((until - since) / (bucket === "hour" ? 3_600_000 : DAY) > MAX_BUCKETS) {
        throw badRequest(`at most ${MAX_BUCKETS} ${bucket}s in one window`);
      }
      const agentId = textParam(c, "agent");
      const userId = textParam(c, "user");
      const buckets = await store.summarizeUsage({
        since,
        until,
        bucket,
        ...(agentId === undefined ? {} : { agentId }),
        ...(userId === undefined ? {} : { userId }),
      });
      const body: UsageView = { since, until, bucket, buckets };
      return c.json(body);
    })
    .get("/expensive", async (c) => {
      const { since, until } = windowParams(c, 7 * DAY);
      const agentId = textParam(c, "agent");
      const userId = textParam(c, "user");
      const page = await store.queryTurnTraces({
        since,
        until,
        limit: EXPENSIVE_SCAN,
        ...(agentId === undefined ? {} : { agentId }),
        ...(userId === undefined ? {} : { userId }),
      });
      const items = page.items
        .map(traceSummary)
        .sort((a, b) => (b.costUsd ?? -1) - (a.costUsd ?? -1) || b.totalTokens - a.totalTokens)
        .slice(0, limitParam(c, 10, 100));
      const body: ExpensiveTurns = {
        items,
        scanned: page.items.length,
        truncated: page.nextCursor !== null,
      };
      return c.json(body);
    });
}
