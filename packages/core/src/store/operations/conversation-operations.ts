import { ConversationInputSchema } from "../../models/conversation.js";
import {
  ConversationListOptionsSchema,
  DeleteUserDataOptionsSchema,
  ListConversationsOptionsSchema,
} from "../../models/queries.js";
import { cursors } from "../../paging/cursor.js";
import type { ConversationsApi } from "../contract/conversations.js";
import { type Implementation, NOTHING } from "../store-context.js";

/** How the store carries out each method of the family (see `ConversationsApi`). */
export const CONVERSATION_METHODS = {
  async storeConversation(ctx, conversation) {
    const parsed = ctx.parse(ConversationInputSchema, conversation, "conversation");
    return ctx.call("storeConversation", { conversation: ctx.records([parsed])[0]! });
  },

  async getConversation(ctx, id, options) {
    return ctx.call("getConversation", ctx.readById(id, "conversation id", options));
  },

  async getConversationsByUserId(ctx, userId, options = {}) {
    const user = ctx.id(userId, "user id");
    const { limit, cursor, tenantId, includeDeleted } = ctx.parse(
      ConversationListOptionsSchema,
      options,
      "page options",
    );
    const query = { limit, cursor, userId: user, tenantId };
    return ctx.list("getConversationsByUserId", query, cursors.conversation, (c) => c, {
      includeDeleted,
    });
  },

  async listConversations(ctx, options = {}) {
    const { includeDeleted, ...query } = ctx.parse(
      ListConversationsOptionsSchema,
      options,
      "list options",
    );
    const codec = cursors.conversationId;
    return ctx.list("listConversations", query, codec, (c) => c.id, { includeDeleted });
  },

  async deleteConversation(ctx, id) {
    return ctx.call("deleteConversation", { id: ctx.id(id, "conversation id") });
  },

  async deleteUserData(ctx, userId, options = {}) {
    const user = ctx.id(userId, "user id");
    const { tenantId } = ctx.parse(DeleteUserDataOptionsSchema, options, "erasure options");
    const scope = ctx.filter({ userId: user, tenantId });
    return scope ? ctx.call("deleteUserData", { scope: { ...scope, userId: user } }) : NOTHING;
  },
} satisfies Implementation<ConversationsApi>;
