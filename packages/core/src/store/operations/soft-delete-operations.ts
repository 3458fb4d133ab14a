import { PurgeOptionsSchema } from "../../models/queries.js";
import type { SoftDeleteApi } from "../contract/soft-delete.js";
import { type Implementation, NOTHING } from "../store-context.js";

/** How the store carries out each method of the family (see `SoftDeleteApi`). */
export const SOFT_DELETE_METHODS = {
  async softDeleteConversation(ctx, id) {
    const key = ctx.id(id, "conversation id");
    return ctx.call("softDeleteConversation", { id: key, deletedAt: Date.now() });
  },

  async restoreConversation(ctx, id) {
    return ctx.call("restoreConversation", { id: ctx.id(id, "conversation id") });
  },

  async softDeleteMessage(ctx, id) {
    const key = ctx.id(id, "message id");
    return ctx.call("softDeleteMessage", { id: key, deletedAt: Date.now() });
  },

  async restoreMessage(ctx, id) {
    return ctx.call("restoreMessage", { id: ctx.id(id, "message id") });
  },

  async purgeDeleted(ctx, options) {
    const { before, ...owners } = ctx.parse(PurgeOptionsSchema, options, "purge options");
    ctx.require("softDelete");
    const scope = ctx.filter(owners);
    return scope ? ctx.call("purgeDeleted", { scope, before }) : NOTHING;
  },
} satisfies Implementation<SoftDeleteApi>;
