import {
  type Conversation,
  type ConversationInput,
  ConversationInputSchema,
} from "../../models/conversation.js";
import {
  type ConversationListOptions,
  ConversationListOptionsSchema,
  type DeletedCounts,
  type DeleteUserDataOptions,
  DeleteUserDataOptionsSchema,
  type ListConversationsOptions,
  ListConversationsOptionsSchema,
  type Page,
  type PurgeOptions,
  PurgeOptionsSchema,
  type ReadOptions,
} from "../../models/queries.js";
import { cursors } from "../../paging/cursor.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import type { StoreContext } from "../store-context.js";
import { EMPTY, identity, NOTHING, take } from "./page-results.js";

export async function storeConversation(
  ctx: StoreContext,
  conversation: ConversationInput,
): Promise<Conversation> {
  const parsed = ctx.parse(ConversationInputSchema, conversation, "conversation");
  return ctx.write("storeConversation", { conversation: ctx.records([parsed])[0]! });
}

export async function getConversation(
  ctx: StoreContext,
  id: string,
  options?: ReadOptions,
): Promise<Conversation | null> {
  return ctx.call("getConversation", ctx.readById(id, "conversation id", options));
}

export async function getConversationsByUserId(
  ctx: StoreContext,
  userId: string,
  options: ConversationListOptions,
): Promise<Page<Conversation>> {
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
}

export async function listConversations(
  ctx: StoreContext,
  options: ListConversationsOptions,
): Promise<Page<Conversation>> {
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
}

export async function deleteConversation(ctx: StoreContext, id: string): Promise<boolean> {
  return ctx.call("deleteConversation", { id: ctx.id(id, "conversation id") });
}

export async function softDeleteConversation(ctx: StoreContext, id: string): Promise<boolean> {
  const key = ctx.id(id, "conversation id");
  return ctx.call("softDeleteConversation", { id: key, deletedAt: Date.now() });
}

export async function restoreConversation(ctx: StoreContext, id: string): Promise<boolean> {
  return ctx.call("restoreConversation", { id: ctx.id(id, "conversation id") });
}

export async function purgeDeleted(
  ctx: StoreContext,
  options: PurgeOptions,
): Promise<DeletedCounts> {
  const { before, ...owners } = ctx.parse(PurgeOptionsSchema, options, "purge options");
  ctx.require("softDelete");
  const scope = ctx.filter(owners);
  return scope ? ctx.call("purgeDeleted", { scope, before }) : NOTHING;
}

export async function deleteUserData(
  ctx: StoreContext,
  userId: string,
  options: DeleteUserDataOptions,
): Promise<DeletedCounts> {
  const user = ctx.id(userId, "user id");
  const { tenantId } = ctx.parse(DeleteUserDataOptionsSchema, options, "erasure options");
  const scope = ctx.filter({ userId: user, tenantId });
  return scope ? ctx.call("deleteUserData", { scope: { ...scope, userId: user } }) : NOTHING;
}
