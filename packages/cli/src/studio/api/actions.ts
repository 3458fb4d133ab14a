import { PassThrough, Readable } from "node:stream";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { writeConversation } from "../../commands/export.js";
import { footerLine, headerLine, noCounts } from "../../ndjson.js";
import { writeLine } from "../../output.js";
import { WITH_DELETED } from "../../walk.js";
import { badRequest, requireJson } from "../params.js";
import type { StudioDeps } from "../studio-deps.js";
import { messageView } from "../views.js";

const EXPORT_PAGE = 1000;

/** The file name offered for a conversation's export: its id with anything unusual replaced. */
function exportFileName(id: string): string {
  return `conversation-${id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100)}.ndjson`;
}

/**
 * Actions, mounted only behind the write guard (`--allow-writes`):
 * - `POST /api/actions/messages/:id/flag` with `{"flagged": true|false}`: `flagMessage`;
 * - `GET /api/actions/conversations/:id/export`: the conversation as an NDJSON export (the same
 *   format as `message-store export`, header and footer included), streamed page by page.
 *
 * Soft delete and restore of a conversation are in `conversation-actions.ts`.
 */
export function actionRoutes({ store }: StudioDeps): Hono {
  return new Hono()
    .post("/messages/:id/flag", async (c) => {
      requireJson(c);
      const body = (await c.req.json().catch(() => null)) as { flagged?: unknown } | null;
      if (typeof body?.flagged !== "boolean") {
        throw badRequest(`send a JSON body {"flagged": true} or {"flagged": false}`);
      }
      const message = await store.flagMessage(c.req.param("id"), body.flagged);
      return c.json(messageView(message));
    })
    .get("/conversations/:id/export", async (c) => {
      const conversation = await store.getConversation(c.req.param("id"), WITH_DELETED);
      if (conversation === null) {
        throw new HTTPException(404, { message: "no conversation with this id" });
      }
      const sink = new PassThrough();
      const counts = noCounts();
      (async () => {
        await writeLine(sink, headerLine());
        await writeConversation(store, sink, conversation, EXPORT_PAGE, counts);
        await writeLine(sink, footerLine(counts));
        sink.end();
      })().catch((error: unknown) => sink.destroy(error as Error));
      return new Response(Readable.toWeb(sink) as ReadableStream, {
        headers: {
          "Content-Type": "application/x-ndjson; charset=utf-8",
          "Content-Disposition": `attachment; filename="${exportFileName(conversation.id)}"`,
        },
      });
    });
}
