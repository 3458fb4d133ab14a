import { DEFAULT_KEEP_CHARS, DEFAULT_MAX_CHARS } from "@message-store/core";
import { Hono } from "hono";
import { WITH_DELETED } from "../../walk.js";
import type { ContextWindow, TranscriptPage } from "../api-types.js";
import { boolParam, intParam, limitParam, textParam } from "../params.js";
import type { StudioDeps } from "../studio-deps.js";
import { transcriptCursor } from "../transcript-cursor.js";
import { messageView, traceSummary } from "../views.js";

/**
 * `GET /api/conversations/:id/messages`: one page of the transcript, chronological, flagged
 * and soft-deleted messages included (the page marks them) (`getMessagesByConversationId`, `?limit` default 200, at most 1000), and the
 * traces of the conversation whose timestamp falls in the page's span (one `queryTurnTraces`).
 * Spans are contiguous: a page's span ends after its last message and the next page's starts
 * there (carried in the studio's cursor, which wraps the store's), the first is open at the start
 * and the last at the end, so every trace comes with exactly one page. A trace timestamped after
 * its message may come with the next page; the page matches traces to messages by `messageId`.
 *
 * `GET /api/conversations/:id/context?n=20&compress=&maxChars=&keepChars=`: the context window a
 * model would see (`getImmediateContext`, compressed unless `compress=false`: by default as the
 * library's `compress: true`, 1,000 / 200 characters; with only `maxChars`, keeping a quarter of it
 * up to 200), and the same window uncompressed: two calls.
 */
export function transcriptRoutes({ store }: StudioDeps): Hono {
  return new Hono()
    .get("/:id/messages", async (c) => {
      const id = c.req.param("id");
      const cursor = transcriptCursor.decode(textParam(c, "cursor"));
      const page = await store.getMessagesByConversationId(id, {
        limit: limitParam(c, 200, 1000),
        cursor: cursor?.store ?? null,
        ...WITH_DELETED,
      });
      const last = page.items.at(-1);
      const until = page.nextCursor === null || last === undefined ? null : last.timestamp + 1;
      const traces =
        page.items.length === 0
          ? []
          : (
              await store.queryTurnTraces({
                conversationId: id,
                ...WITH_DELETED,
                ...(cursor === null ? {} : { since: cursor.since }),
                ...(until === null ? {} : { until }),
              })
            ).items.map(traceSummary);
      const body: TranscriptPage = {
        items: page.items.map(messageView),
        nextCursor:
          page.nextCursor === null || until === null
            ? null
            : transcriptCursor.encode({ store: page.nextCursor, since: until }),
        traces,
      };
      return c.json(body);
    })
    .get("/:id/context", async (c) => {
      const id = c.req.param("id");
      const n = intParam(c, "n", { min: 0, max: 1000 }) ?? 20;
      const maxChars = intParam(c, "maxChars", { min: 1, max: 10_000_000 }) ?? DEFAULT_MAX_CHARS;
      const keepChars =
        intParam(c, "keepChars", { min: 0, max: 10_000_000 }) ??
        Math.min(DEFAULT_KEEP_CHARS, Math.floor(maxChars / 4));
      const compress = boolParam(c, "compress") === false ? null : { maxChars, keepChars };
      const [context, full] = await Promise.all([
        store.getImmediateContext(id, n, compress === null ? {} : { compress }),
        store.getImmediateContext(id, n),
      ]);
      const body: ContextWindow = {
        n,
        compress,
        context: context.map(messageView),
        full: full.map(messageView),
      };
      return c.json(body);
    });
}
