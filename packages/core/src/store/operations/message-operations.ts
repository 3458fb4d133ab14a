import { z } from "zod";
import {
  fastBatch,
  fastContextSize,
  fastMessage,
  fastNoOptions,
  MAX_BATCH,
  MAX_CONTEXT,
} from "../../canonical/input-fast-paths.js";
import { compressMessages } from "../../context/compress-messages.js";
import { type Message, type MessageInput, MessageSchema } from "../../models/message.js";
import {
  type ContextOptions,
  ContextOptionsSchema,
  type MessageListOptions,
  MessageListOptionsSchema,
  type Page,
  type ReadOptions,
} from "../../models/queries.js";
import { cursors, type MessageKey } from "../../paging/cursor.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import { rejectDuplicateIds } from "../../validation.js";
import type { SequencedMessage } from "../driver.js";
import { notFound } from "../owner-refusal.js";
import type { StoreContext } from "../store-context.js";
import { take } from "./page-results.js";

const MessageBatchSchema = z.array(MessageSchema).max(MAX_BATCH);
const ContextSizeSchema = z.number().int().min(0).max(MAX_CONTEXT);

/** A transcript row's position, as its cursor and the next page's start. */
export const messageKey = (r: SequencedMessage): MessageKey => ({
  timestamp: r.message.timestamp,
  sequence: r.sequence,
});

const messageOf = (r: SequencedMessage): Message => r.message;

export async function storeMessage(ctx: StoreContext, message: MessageInput): Promise<Message> {
  const parsed = ctx.parse(MessageSchema, message, "message", fastMessage);
  const [stored] = await ctx.write("storeMessages", { messages: ctx.records([parsed]) });
  return stored!;
}

export async function storeMessages(
  ctx: StoreContext,
  messages: MessageInput[],
): Promise<Message[]> {
  const parsed = ctx.parse(MessageBatchSchema, messages, "messages", fastBatch);
  rejectDuplicateIds(parsed, "messages", ctx.name);
  const records = ctx.records(parsed);
  return records.length === 0 ? [] : ctx.write("storeMessages", { messages: records });
}

export async function getMessage(
  ctx: StoreContext,
  id: string,
  options?: ReadOptions,
): Promise<Message | null> {
  return ctx.call("getMessage", ctx.readById(id, "message id", options));
}

export async function flagMessage(
  ctx: StoreContext,
  id: string,
  flagged: boolean,
): Promise<Message> {
  const key = ctx.id(id, "message id");
  const value = ctx.parse(z.boolean(), flagged, "flagged");
  const updated = await ctx.call("flagMessage", { id: key, flagged: value });
  if (updated === null) throw notFound("message", key, ctx.name);
  return updated;
}

export async function softDeleteMessage(ctx: StoreContext, id: string): Promise<boolean> {
  const key = ctx.id(id, "message id");
  return ctx.call("softDeleteMessage", { id: key, deletedAt: Date.now() });
}

export async function restoreMessage(ctx: StoreContext, id: string): Promise<boolean> {
  return ctx.call("restoreMessage", { id: ctx.id(id, "message id") });
}

export async function deleteMessage(ctx: StoreContext, id: string): Promise<boolean> {
  return ctx.call("deleteMessage", { id: ctx.id(id, "message id") });
}

export async function getMessagesByConversationId(
  ctx: StoreContext,
  conversationId: string,
  options: MessageListOptions,
): Promise<Page<Message>> {
  const key = ctx.id(conversationId, "conversation id");
  const { limit, cursor, includeDeleted } = ctx.parse(
    MessageListOptionsSchema,
    options,
    "page options",
  );
  const after = decodeCursor(cursor, cursors.message.decode, ctx.name);
  const page = { after, take: take(limit) };
  const rows = await ctx.call("getMessagesByConversationId", {
    conversationId: key,
    includeDeleted,
    page,
  });
  return toPage(rows, limit ?? null, messageOf, (r) => cursors.message.encode(messageKey(r)));
}

export async function getImmediateContext(
  ctx: StoreContext,
  conversationId: string,
  n: number,
  options: ContextOptions,
): Promise<Message[]> {
  const key = ctx.id(conversationId, "conversation id");
  const count = ctx.parse(ContextSizeSchema, n, "n", fastContextSize);
  const { compress } = ctx.parse(ContextOptionsSchema, options, "context", fastNoOptions);
  if (count === 0) return [];
  const messages = await ctx.call("getImmediateContext", { conversationId: key, n: count });
  return compress ? compressMessages(messages, compress) : messages;
}
