import { ConversationInputSchema } from "../../models/conversation.js";
import {
  ConversationListOptionsSchema,
  DeleteUserDataOptionsSchema,
  ListConversationsOptionsSchema,
} from "../../models/queries.js";
import { cursors } from "../../paging/cursor.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import type { ConversationsApi } from "../contract/conversations.js";
import type { Implementation } from "../store-context.js";
import { EMPTY, identity, NOTHING, take } from "./page-results.js";

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
    const { limit, cursor, tenantId, ...rest } = ctx.parse(
      ConversationListOptionsSchema,
      options,
      "page options",
    );
    const scope = ctx.filter({ userId: user, tenantId });
    const after = decodeCursor(cursor, cursors.conversation.decode, ctx.name);
    if (!scope) return EMPTY;
    const page = { after, take: take(limit) };
    const request = { ...rest, scope: { ...scope, userId: user }, page };
    const rows = await ctx.call("getConversationsByUserId", request);
    return toPage(rows, limit ?? null, identity, cursors.conversation.encode);
  },

  async listConversations(ctx, options = {}) {
    const { limit, cursor, userId, tenantId, ...rest } = ctx.parse(
      ListConversationsOptionsSchema,
      options,
      "list options",
    );
    const scope = ctx.filter({ userId, tenantId });
    const after = decodeCursor(cursor, cursors.conversationId.decode, ctx.name);
    if (!scope) return EMPTY;
    const rows = await ctx.call("listConversations", {
      ...rest,
      scope,
      page: { after, take: take(limit) },
    });
    return toPage(rows, limit ?? null, identity, (c) => cursors.conversationId.encode(c.id));
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
