import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { WITH_DELETED } from "../../walk.js";
import type { ConversationAction } from "../api-types.js";
import { badRequest, requireJson } from "../params.js";
import type { StudioDeps } from "../studio-deps.js";

/**
 * Soft delete and restore, mounted only behind the write guard (`--allow-writes`), each a JSON
 * `POST` (any JSON body; the type is the CSRF guard) and two store calls:
 * - `POST /api/actions/conversations/:id/delete`: `softDeleteConversation` (with its messages
 *   and traces);
 * - `POST /api/actions/conversations/:id/restore`: `restoreConversation` (what was deleted with
 *   it comes back);
 * then `getConversation(id, { includeDeleted: true })`. 404 for an unknown conversation, 400
 * when the store has no soft delete.
 */
export function conversationActionRoutes({ store }: StudioDeps): Hono {
  const act = (action: (id: string) => Promise<boolean>) => async (c: Context) => {
    requireJson(c);
    if (store.capabilities.softDelete !== true) throw badRequest("this store has no soft delete");
    const id = c.req.param("id")!;
    const changed = await action(id);
    const conversation = await store.getConversation(id, WITH_DELETED);
    if (conversation === null) {
      throw new HTTPException(404, { message: "no conversation with this id" });
    }
    const body: ConversationAction = { changed, conversation };
    return c.json(body);
  };
  return new Hono()
    .post(
      "/conversations/:id/delete",
      act((id) => store.softDeleteConversation(id)),
    )
    .post(
      "/conversations/:id/restore",
      act((id) => store.restoreConversation(id)),
    );
}
